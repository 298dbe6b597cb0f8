/**
 * The byte format of a backup (`GET /backup`, `raftq backup`, `raftq restore`): every row of the
 * state database from one frozen view, so a backup is the state at exactly one applied index.
 *
 *   "RAFTQ-BACKUP 1\n" ‖ header JSON ‖ "\n"
 *   frames: BE32 length ‖ rows (the snapshot chunk row encoding: BE32 key length ‖ key ‖ BE32 value length ‖ value)
 *   end:    BE32 0xFFFFFFFF ‖ BE32 CRC-32 of every frame's rows
 *
 * The end marker is what tells a complete backup from one cut short (a node that stopped
 * mid-stream, a full disk): the reader refuses a file without it or with a wrong checksum.
 */
import { crc32 } from 'node:zlib';
import { RaftqError } from '../base/errors.js';
import { raftqLimits } from '../base/limits.js';
import type { EngineEntry } from '../storage/engine.js';
import { decodeRows, snapshotChunks } from '../cluster/snapshot-chunks.js';
import type { EngineReader } from '../storage/engine.js';

export const backupMagic = 'RAFTQ-BACKUP 1\n';
const endMarker = 0xffff_ffff;

export interface BackupHeader {
  /** The node that streamed the backup. */
  readonly nodeId: string;
  /** The Raft index the state had applied when it was frozen. */
  readonly appliedIndex: number;
  /** Host wall clock of that node when the backup started (for people, not for the restore). */
  readonly createdAtMs: number;
}

export class BackupFormatError extends RaftqError {
  readonly code = 'BackupFormat';
  constructor(
    readonly reason: string,
    options?: { cause?: unknown },
  ) {
    super(`not a complete raftq backup: ${reason}`, options);
  }
}

function be32(value: number): Uint8Array {
  const out = new Uint8Array(4);
  new DataView(out.buffer).setUint32(0, value);
  return out;
}

/** The bytes of a backup of `reader` (a frozen state view), as they should be written out. */
export async function* encodeBackup(
  header: BackupHeader,
  reader: EngineReader,
  chunkBytes: number,
): AsyncGenerator<Uint8Array> {
  yield new TextEncoder().encode(`${backupMagic}${JSON.stringify(header)}\n`);
  let checksum = 0;
  for await (const chunk of snapshotChunks(reader, chunkBytes)) {
    if (chunk.data.byteLength === 0) continue;
    checksum = crc32(chunk.data, checksum);
    yield be32(chunk.data.byteLength);
    yield chunk.data;
  }
  yield be32(endMarker);
  yield be32(checksum >>> 0);
}

/** Reads exact byte counts from an async stream of buffers. */
class ByteReader {
  private buffered: Buffer = Buffer.alloc(0);
  private readonly source: AsyncIterator<Uint8Array>;
  private isDone = false;

  constructor(source: AsyncIterable<Uint8Array>) {
    this.source = source[Symbol.asyncIterator]();
  }

  async read(length: number, what: string): Promise<Buffer> {
    while (this.buffered.byteLength < length) {
      if (this.isDone) throw new BackupFormatError(`the file ends inside ${what}`);
      const next = await this.source.next();
      if (next.done === true) this.isDone = true;
      else this.buffered = Buffer.concat([this.buffered, Buffer.from(next.value)]);
    }
    const out = this.buffered.subarray(0, length);
    this.buffered = this.buffered.subarray(length);
    return out;
  }

  async readLine(lengthMax: number, what: string): Promise<string> {
    for (;;) {
      const newline = this.buffered.indexOf(0x0a);
      if (newline !== -1) return (await this.read(newline + 1, what)).subarray(0, newline).toString('utf8');
      if (this.buffered.byteLength > lengthMax)
        throw new BackupFormatError(`${what} is longer than ${lengthMax} bytes`);
      if (this.isDone) throw new BackupFormatError(`the file ends inside ${what}`);
      const next = await this.source.next();
      if (next.done === true) this.isDone = true;
      else this.buffered = Buffer.concat([this.buffered, Buffer.from(next.value)]);
    }
  }

  async isAtEnd(): Promise<boolean> {
    while (this.buffered.byteLength === 0 && !this.isDone) {
      const next = await this.source.next();
      if (next.done === true) this.isDone = true;
      else this.buffered = Buffer.from(next.value);
    }
    return this.buffered.byteLength === 0;
  }
}

function parseHeader(line: string): BackupHeader {
  let parsed: unknown;
  try {
    parsed = JSON.parse(line);
  } catch (error) {
    throw new BackupFormatError('the header is not JSON', { cause: error });
  }
  const header = parsed as Partial<BackupHeader> | null;
  if (
    header === null ||
    typeof header !== 'object' ||
    typeof header.nodeId !== 'string' ||
    !Number.isSafeInteger(header.appliedIndex) ||
    typeof header.createdAtMs !== 'number'
  ) {
    throw new BackupFormatError('the header lacks nodeId, appliedIndex or createdAtMs');
  }
  return { nodeId: header.nodeId, appliedIndex: header.appliedIndex as number, createdAtMs: header.createdAtMs };
}

/**
 * Reads a backup: the header first, then the rows in batches through `onRows`. Resolves only
 * when the end marker and checksum were found and nothing follows them.
 */
export async function decodeBackup(
  source: AsyncIterable<Uint8Array>,
  handlers: { onHeader(header: BackupHeader): Promise<void> | void; onRows(rows: EngineEntry[]): Promise<void> },
): Promise<{ header: BackupHeader; rowCount: number; byteCount: number }> {
  const bytes = new ByteReader(source);
  const magic = (await bytes.read(backupMagic.length, 'the magic')).toString('latin1');
  if (magic !== backupMagic)
    throw new BackupFormatError(`it does not start with ${JSON.stringify(backupMagic.trim())}`);
  const header = parseHeader(await bytes.readLine(raftqLimits.backupHeaderBytesMax.value, 'the header'));
  await handlers.onHeader(header);
  let checksum = 0;
  let rowCount = 0;
  let byteCount = 0;
  for (;;) {
    const length = (await bytes.read(4, 'a frame length')).readUInt32BE(0);
    if (length === endMarker) break;
    if (length > raftqLimits.backupFrameBytesMax.value) throw new BackupFormatError(`a frame claims ${length} bytes`);
    const data = await bytes.read(length, 'a frame');
    checksum = crc32(data, checksum);
    let rows: EngineEntry[];
    try {
      rows = decodeRows(new Uint8Array(data.buffer, data.byteOffset, data.byteLength));
    } catch (error) {
      throw new BackupFormatError('a frame holds a torn row', { cause: error });
    }
    rowCount += rows.length;
    byteCount += length;
    await handlers.onRows(rows);
  }
  const expected = (await bytes.read(4, 'the checksum')).readUInt32BE(0);
  if (expected !== checksum >>> 0)
    throw new BackupFormatError(
      `checksum ${expected.toString(16)} in the file, ${(checksum >>> 0).toString(16)} computed`,
    );
  if (!(await bytes.isAtEnd())) throw new BackupFormatError('bytes follow the end marker');
  return { header, rowCount, byteCount };
}
