/** The errors a read or an open of the MVCC store ends with. */
import { RaftqError, RetryableError } from '../base/errors.js';
import { stateFormatVersion } from './system-keys.js';

/** A read at a timestamp whose versions garbage collection may already have removed. */
export class ReadBelowWatermarkError extends RetryableError {
  readonly code = 'ReadBelowWatermark';
  constructor(
    readonly readTs: number,
    readonly watermarkTs: number,
  ) {
    super(
      `Cannot read at ts ${readTs}: versions below ${watermarkTs} may have been garbage collected; read again at a newer view`,
    );
  }
}

/** The engine holds state of a layout this code does not know. */
export class StateFormatError extends RaftqError {
  readonly code = 'StateFormat';
  constructor(readonly formatVersion: number) {
    super(`The state engine has format version ${formatVersion}; this build reads version ${stateFormatVersion}`);
  }
}
