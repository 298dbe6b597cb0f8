/**
 * The reader of the rows the queue layer keeps as JSON: queue meta, deduplication rows, receive
 * attempts, move tasks, and receive states of the older layout. Every field it hands out is
 * checked against the type its writer gave it, so a row that is not what a writer wrote (a damaged
 * disk, a format this node does not know) fails with StoredRowInvalidError, naming the row and the
 * field, where it is read — instead of flowing on as an object of the wrong shape and deciding
 * something it should not. (The hot rows — data, state, vis — have binary layouts of their own,
 * each with its own checks: message-data-row.ts, receive-state.ts, message-record.ts.)
 */
import { RaftqError } from '../../base/errors.js';

/** A stored row that does not decode as the row its key names. */
export class StoredRowInvalidError extends RaftqError {
  readonly code = 'StoredRowInvalid';
  constructor(
    readonly rowName: string,
    readonly reason: string,
    options?: { cause?: unknown },
  ) {
    super(`A stored ${rowName} row is invalid: ${reason}`, options);
  }
}

const decoder = new TextDecoder('utf-8', { fatal: true });

export class StoredJsonRow {
  private constructor(
    private readonly fields: Readonly<Record<string, unknown>>,
    readonly rowName: string,
  ) {}

  /** The row's bytes as a JSON object; anything else (not UTF-8, not JSON, not an object) is invalid. */
  static parse(bytes: Uint8Array, rowName: string): StoredJsonRow {
    let parsed: unknown;
    try {
      parsed = JSON.parse(decoder.decode(bytes));
    } catch (cause) {
      throw new StoredRowInvalidError(rowName, 'not JSON', { cause });
    }
    return StoredJsonRow.of(parsed, rowName);
  }

  private static of(value: unknown, rowName: string): StoredJsonRow {
    if (typeof value !== 'object' || value === null || Array.isArray(value))
      throw new StoredRowInvalidError(rowName, 'not a JSON object');
    return new StoredJsonRow(value as Record<string, unknown>, rowName);
  }

  string(name: string): string {
    const value = this.fields[name];
    if (typeof value !== 'string') throw this.invalid(name, 'a string');
    return value;
  }

  /** Absent (or null, which JSON writes for a field it cannot say): undefined. */
  optionalString(name: string): string | undefined {
    return isAbsent(this.fields[name]) ? undefined : this.string(name);
  }

  /** A finite number. */
  number(name: string): number {
    const value = this.fields[name];
    if (typeof value !== 'number' || !Number.isFinite(value)) throw this.invalid(name, 'a finite number');
    return value;
  }

  /** Absent or null: undefined. */
  optionalNumber(name: string): number | undefined {
    return isAbsent(this.fields[name]) ? undefined : this.number(name);
  }

  /** A safe integer of at least `min`. */
  integer(name: string, min = 0): number {
    const value = this.fields[name];
    if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < min)
      throw this.invalid(name, `an integer of at least ${min}`);
    return value;
  }

  /** One of `allowed`. */
  oneOf<T extends string>(name: string, allowed: readonly T[]): T {
    const value = this.string(name);
    if (!(allowed as readonly string[]).includes(value)) throw this.invalid(name, `one of ${allowed.join(', ')}`);
    return value as T;
  }

  /** An object whose every value is a string (attributes, tags). */
  stringMap(name: string): Readonly<Record<string, string>> {
    const value = this.fields[name];
    if (typeof value !== 'object' || value === null || Array.isArray(value)) throw this.invalid(name, 'an object');
    for (const entry of Object.values(value)) if (typeof entry !== 'string') throw this.invalid(name, 'strings only');
    return value as Record<string, string>;
  }

  /** An array of objects, each read as a row of its own (named after this one). */
  objects(name: string): StoredJsonRow[] {
    const value = this.fields[name];
    if (!Array.isArray(value)) throw this.invalid(name, 'an array');
    return value.map((item: unknown) => StoredJsonRow.of(item, `${this.rowName} (${name})`));
  }

  private invalid(name: string, expected: string): StoredRowInvalidError {
    return new StoredRowInvalidError(this.rowName, `field ${JSON.stringify(name)} is not ${expected}`);
  }
}

function isAbsent(value: unknown): boolean {
  return value === undefined || value === null;
}
