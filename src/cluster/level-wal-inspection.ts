/**
 * Reads the write-ahead log files of a LevelDB database before it is opened, to learn whether it
 * lost writes. LevelDB replays its log on open and, by default, silently drops a record whose
 * checksum fails (with the rest of its 32 KiB block) or that the file ends in the middle of; the
 * database then opens as if those writes had never happened — including writes that were synced
 * and acknowledged. Once opened, the evidence is gone (the log is replayed into a table and
 * deleted), so this runs first.
 *
 * Log format (LevelDB's doc/log_format): 32 KiB blocks of records, each a 7-byte header —
 * masked CRC-32C (LE32) of type and payload, length (LE16), type (1 full, 2 first, 3 middle,
 * 4 last) — then the payload; a block trailer shorter than a header is zero filler. A logical
 * record is a WriteBatch: sequence (LE64), count (LE32), then per operation a tag (1 put,
 * 0 delete), a varint32-prefixed key and, for a put, a varint32-prefixed value.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { crc32c, maskLevelCrc } from './crc32c.js';

const blockSizeBytes = 32 * 1024;
const headerSizeBytes = 7;
const recordType = { zero: 0, full: 1, first: 2, middle: 3, last: 4 } as const;

export type WalDamageKind = 'checksum-mismatch' | 'truncated-record' | 'broken-fragments' | 'malformed-batch';

export interface WalDamage {
  readonly file: string;
  readonly offsetBytes: number;
  readonly kind: WalDamageKind;
}

export interface WalInspection {
  /** The first damage found (later records of that file and later files are not read), or null. */
  readonly damage: WalDamage | null;
  /** The last value written under `watchedKey` by an intact batch before the damage (or the end). */
  readonly lastWatchedValue: Uint8Array | null;
  readonly batchesRead: number;
  readonly filesRead: number;
}

/**
 * Inspects every `*.log` file in `dir` (oldest first, as LevelDB replays them). `watchedKey`
 * names a key whose last intact value the caller wants (the Raft hard state): it tells how far the
 * node had committed before the first write that was lost.
 */
export function inspectLevelWal(dir: string, watchedKey: Uint8Array): WalInspection {
  const files = listLogFiles(dir);
  let lastWatchedValue: Uint8Array | null = null;
  let batchesRead = 0;
  for (const file of files) {
    const bytes = readFileSync(join(dir, file));
    const damage = readRecords(bytes, (record) => {
      const result = scanBatch(record, watchedKey);
      if (result === 'malformed') return false;
      batchesRead++;
      if (result !== null) lastWatchedValue = result;
      return true;
    });
    if (damage !== null) return { damage: { file, ...damage }, lastWatchedValue, batchesRead, filesRead: files.length };
  }
  return { damage: null, lastWatchedValue, batchesRead, filesRead: files.length };
}

function listLogFiles(dir: string): string[] {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return [];
  }
  return names
    .filter((name) => /^\d+\.log$/.test(name))
    .sort((a, b) => Number.parseInt(a, 10) - Number.parseInt(b, 10));
}

/** Walks the physical records of one file; returns the first damage, or null if it ends cleanly. */
function readRecords(
  bytes: Uint8Array,
  onRecord: (record: Uint8Array) => boolean,
): { offsetBytes: number; kind: WalDamageKind } | null {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let fragments: Uint8Array[] | null = null;
  let fragmentsStartBytes = 0;
  let offset = 0;
  while (offset < bytes.length) {
    const blockLeftBytes = blockSizeBytes - (offset % blockSizeBytes);
    if (blockLeftBytes < headerSizeBytes) {
      offset += blockLeftBytes;
      continue;
    }
    if (offset + headerSizeBytes > bytes.length) return { offsetBytes: offset, kind: 'truncated-record' };
    const storedCrc = view.getUint32(offset, true);
    const length = view.getUint16(offset + 4, true);
    const type = bytes[offset + 6] as number;
    if (type === recordType.zero && length === 0 && storedCrc === 0) {
      // Preallocated zeros: LevelDB skips the rest of the block.
      offset += blockLeftBytes;
      continue;
    }
    if (headerSizeBytes + length > blockLeftBytes) {
      return {
        offsetBytes: offset,
        kind: offset + headerSizeBytes + length > bytes.length ? 'truncated-record' : 'checksum-mismatch',
      };
    }
    if (offset + headerSizeBytes + length > bytes.length) return { offsetBytes: offset, kind: 'truncated-record' };
    const typeAndPayload = bytes.subarray(offset + 6, offset + headerSizeBytes + length);
    if (maskLevelCrc(crc32c(typeAndPayload)) !== storedCrc) return { offsetBytes: offset, kind: 'checksum-mismatch' };
    const payload = typeAndPayload.subarray(1);
    if (type === recordType.full || type === recordType.first) {
      if (fragments !== null) return { offsetBytes: fragmentsStartBytes, kind: 'broken-fragments' };
      if (type === recordType.full) {
        if (!onRecord(payload)) return { offsetBytes: offset, kind: 'malformed-batch' };
      } else {
        fragments = [payload];
        fragmentsStartBytes = offset;
      }
    } else if (type === recordType.middle || type === recordType.last) {
      if (fragments === null) return { offsetBytes: offset, kind: 'broken-fragments' };
      fragments.push(payload);
      if (type === recordType.last) {
        if (!onRecord(concat(fragments))) return { offsetBytes: fragmentsStartBytes, kind: 'malformed-batch' };
        fragments = null;
      }
    } else {
      return { offsetBytes: offset, kind: 'checksum-mismatch' };
    }
    offset += headerSizeBytes + length;
  }
  return fragments === null ? null : { offsetBytes: fragmentsStartBytes, kind: 'truncated-record' };
}

/** The last value the batch puts under `watchedKey` (null if none), or 'malformed'. */
function scanBatch(batch: Uint8Array, watchedKey: Uint8Array): Uint8Array | null | 'malformed' {
  if (batch.length < 12) return 'malformed';
  const view = new DataView(batch.buffer, batch.byteOffset, batch.byteLength);
  const count = view.getUint32(8, true);
  let position = 12;
  let watched: Uint8Array | null = null;
  const readSlice = (): Uint8Array | null => {
    let length = 0;
    for (let shift = 0; shift <= 28; shift += 7) {
      if (position >= batch.length) return null;
      const byte = batch[position++] as number;
      length |= (byte & 0x7f) << shift;
      if ((byte & 0x80) === 0) {
        if (position + length > batch.length) return null;
        const slice = batch.subarray(position, position + length);
        position += length;
        return slice;
      }
    }
    return null;
  };
  for (let i = 0; i < count; i++) {
    if (position >= batch.length) return 'malformed';
    const tag = batch[position++];
    const key = readSlice();
    if (key === null) return 'malformed';
    if (tag === 1) {
      const value = readSlice();
      if (value === null) return 'malformed';
      if (isEqual(key, watchedKey)) watched = value;
    } else if (tag !== 0) {
      return 'malformed';
    }
  }
  return watched;
}

function concat(parts: readonly Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((sum, part) => sum + part.length, 0));
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.length;
  }
  return out;
}

function isEqual(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}
