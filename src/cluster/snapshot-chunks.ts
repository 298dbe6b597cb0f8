/**
 * The byte format of a streamed state snapshot: the state database's rows, in key order, packed
 * into chunks of about raftLimits.snapshotChunkBytes. Each row is BE32 key length ‖ key ‖ BE32
 * value length ‖ value; a chunk holds whole rows. A CRC-32 of all chunk data so far rides on every
 * chunk, and the receiver checks it on the last one before it installs anything.
 */
import { crc32 } from 'node:zlib';
import { assert } from '../base/assert.js';
import type { EngineEntry, EngineReader } from '../storage/engine.js';

export interface EncodedChunk {
  readonly offsetBytes: number;
  readonly data: Uint8Array;
  readonly isLast: boolean;
  readonly checksum: number;
}

function encodeRows(rows: readonly EngineEntry[]): Uint8Array {
  let size = 0;
  for (const row of rows) size += 8 + row.key.byteLength + row.value.byteLength;
  const out = new Uint8Array(size);
  const view = new DataView(out.buffer);
  let at = 0;
  for (const row of rows) {
    view.setUint32(at, row.key.byteLength);
    out.set(row.key, at + 4);
    at += 4 + row.key.byteLength;
    view.setUint32(at, row.value.byteLength);
    out.set(row.value, at + 4);
    at += 4 + row.value.byteLength;
  }
  return out;
}

export function decodeRows(data: Uint8Array): EngineEntry[] {
  const rows: EngineEntry[] = [];
  const view = new DataView(data.buffer, data.byteOffset, data.byteLength);
  let at = 0;
  while (at < data.byteLength) {
    assert(at + 4 <= data.byteLength, 'snapshot chunk: truncated key length');
    const keyLength = view.getUint32(at);
    assert(at + 4 + keyLength + 4 <= data.byteLength, 'snapshot chunk: truncated key');
    const key = data.subarray(at + 4, at + 4 + keyLength);
    at += 4 + keyLength;
    const valueLength = view.getUint32(at);
    assert(at + 4 + valueLength <= data.byteLength, 'snapshot chunk: truncated value');
    const value = data.subarray(at + 4, at + 4 + valueLength);
    at += 4 + valueLength;
    rows.push({ key, value });
  }
  return rows;
}

/** Every row of `reader` (a frozen engine snapshot) as chunks; the last chunk may be empty. */
export async function* snapshotChunks(reader: EngineReader, chunkBytes: number): AsyncGenerator<EncodedChunk> {
  const iterator = reader.iterator({});
  let checksum = 0;
  let offsetBytes = 0;
  let rows: EngineEntry[] = [];
  let rowBytes = 0;
  try {
    for (;;) {
      const page = await iterator.next(256);
      for (const row of page) {
        rows.push(row);
        rowBytes += 8 + row.key.byteLength + row.value.byteLength;
        if (rowBytes >= chunkBytes) {
          const data = encodeRows(rows);
          checksum = crc32(data, checksum);
          yield { offsetBytes, data, isLast: false, checksum };
          offsetBytes += data.byteLength;
          rows = [];
          rowBytes = 0;
        }
      }
      if (page.length === 0) break;
    }
    const data = encodeRows(rows);
    checksum = crc32(data, checksum);
    yield { offsetBytes, data, isLast: true, checksum };
  } finally {
    await iterator.close();
  }
}

/** Follows a received stream: offsets must be contiguous and the final checksum must match. */
export class ChunkVerifier {
  private expectedOffset = 0;
  private checksum = 0;

  accept(chunk: {
    offsetBytes: number;
    data: Uint8Array;
    isLast: boolean;
    checksum: number;
  }): { ok: true } | { ok: false; why: string } {
    if (chunk.offsetBytes !== this.expectedOffset)
      return { ok: false, why: `chunk at offset ${chunk.offsetBytes}, expected ${this.expectedOffset}` };
    this.checksum = crc32(chunk.data, this.checksum);
    this.expectedOffset += chunk.data.byteLength;
    if (chunk.checksum !== this.checksum) return { ok: false, why: `checksum mismatch at offset ${chunk.offsetBytes}` };
    return { ok: true };
  }
}
