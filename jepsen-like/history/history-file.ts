import { closeSync, openSync, readFileSync, writeSync } from 'node:fs';
import type { HistoryOp } from './history-op.js';
import type { HistorySink } from './history-recorder.js';

/**
 * history.jsonl: one operation per line, appended as it happens so that a run that crashes still
 * leaves its history behind. Infinity is not JSON, so no field may hold it.
 */
export class HistoryFileWriter implements HistorySink {
  private readonly fd: number;

  constructor(readonly path: string) {
    this.fd = openSync(path, 'a');
  }

  append(op: HistoryOp): void {
    writeSync(this.fd, `${JSON.stringify(op)}\n`);
  }

  close(): void {
    closeSync(this.fd);
  }
}

export class HistoryFileFormatError extends Error {
  override readonly name = 'HistoryFileFormatError';
  constructor(
    readonly path: string,
    readonly line: number,
    reason: string,
    options?: { cause?: unknown },
  ) {
    super(`Cannot read history ${path}: line ${line}: ${reason}`, options);
  }
}

export function readHistoryFile(path: string): HistoryOp[] {
  return parseHistoryJsonl(readFileSync(path, 'utf8'), path);
}

export function parseHistoryJsonl(text: string, path = '<text>'): HistoryOp[] {
  const ops: HistoryOp[] = [];
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]?.trim() ?? '';
    if (line === '') continue;
    let parsed: unknown;
    try {
      parsed = JSON.parse(line);
    } catch (cause) {
      throw new HistoryFileFormatError(path, i + 1, 'not JSON', { cause });
    }
    if (!isHistoryOp(parsed))
      throw new HistoryFileFormatError(path, i + 1, 'not an operation (index, process, type, f, timeMs)');
    ops.push(parsed);
  }
  return ops;
}

function isHistoryOp(value: unknown): value is HistoryOp {
  if (typeof value !== 'object' || value === null) return false;
  const op = value as Record<string, unknown>;
  return (
    typeof op['index'] === 'number' &&
    typeof op['process'] === 'number' &&
    typeof op['f'] === 'string' &&
    typeof op['timeMs'] === 'number' &&
    (op['type'] === 'invoke' || op['type'] === 'ok' || op['type'] === 'fail' || op['type'] === 'info')
  );
}
