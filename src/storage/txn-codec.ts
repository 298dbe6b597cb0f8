/**
 * The binary form of transactions in Raft entries (and in forwarding): deterministic, compact,
 * no JSON. Message bodies travel as raw bytes and decode as views into the entry (no copy).
 *
 * Batch (one Raft entry's data):
 *   u8 format · varint leaderStampTsUs · varint txnCount · txn*
 * Txn:
 *   varint idBytes · utf8 id · varint startTsUs · varint nowMs
 *   · varint readCount · key*
 *   · varint writeCount · (u8 kind: 1 put, 2 put of a new key, 0 delete, 3 delete of a live key,
 *     4 delete of a live key committed with an earlier write's key
 *     · key · [varint valueBytes · value] · [varint writesBefore])*
 * Key, format 2 (written since 2026-12-07), in the order of the encoding (read keys, then write
 * keys, txn after txn):
 *   varint code, odd: the same key as the one (code + 1) / 2 keys before it; or
 *   varint code, even · varint sharedBytes · varint restBytes · rest: the first sharedBytes bytes
 *   of the key code / 2 + 1 keys before it (of an empty key for the first), then rest.
 * Key, format 1 (written before; still decoded, as a log or a forward of that time may hold it):
 *   varint keyBytes · key.
 *
 * Why: keys were most of a consuming node's log bytes. A receive of ten messages reads twenty keys
 * and writes ten of them again; a delete reads twenty and writes those and ten more. A queue's keys
 * start with its name, generation and family, and a transaction names a few families of each
 * message in turn (data and state; data, vis and state), so a key shares most of its 70-90 bytes
 * with the key of its family one to three keys before it; the writer takes the longest of those.
 * Every byte of an entry is written, synced and compacted on every replica and sent to each
 * follower (docs/architecture/storage.md, "Keys in a Raft entry", has the bytes and the CPU). A
 * decoded new key of format 2 is an array cut from a slab (byte-slab.ts; the apply step's
 * consumers copy what they keep); a format 1 key is a view into the entry.
 *
 * Encoding validates what the apply step relies on (keys are non-empty encoded tuples, numbers
 * are non-negative safe integers), so a malformed transaction is refused at the proposer and
 * never reaches the log. Decoding validates the same, so a corrupt entry is reported, not applied.
 */
import { RaftqError } from '../base/errors.js';
import { ByteReader } from './byte-reader.js';
import { ByteWriter } from './byte-writer.js';
import { slabArray } from './byte-slab.js';
import { isWellFormedKey } from './key-codec.js';
import type { Txn, TxnWrite } from './txn.js';

/** Every key whole (see the file comment). */
const wholeKeysFormat = 1;
/** Each key a back-reference, or the prefix it shares with one of the keys just before it and the rest. */
const sharedPrefixFormat = 2;
const writeKindDelete = 0;
const writeKindPut = 1;
/** A put whose key has never existed (TxnWrite.isNewKey). */
const writeKindPutNewKey = 2;
/** A delete of a key that holds a value, its rivals caught by the read keys (TxnWrite.isLiveKey). */
const writeKindDeleteLiveKey = 3;
/** A delete of a live key whose newest version an earlier write's key shares (TxnWrite.sameCommitAsWriteBefore). */
const writeKindDeleteLiveKeySameCommit = 4;

export interface TxnBatch {
  /** The leader's cluster-clock stamp of the entry, in microseconds (see txn.ts). */
  readonly leaderStampTsUs: number;
  readonly txns: readonly Txn[];
}

/** A transaction that cannot be proposed: the apply step could not treat it deterministically. */
export class TxnInvalidError extends RaftqError {
  readonly code = 'TxnInvalid';
  constructor(
    readonly txnId: string,
    readonly reason: string,
  ) {
    super(`Transaction ${JSON.stringify(txnId)} is invalid: ${reason}`);
  }
}

/** Entry data that is not an encoded txn batch (corruption, or a newer format). */
export class TxnDecodeError extends RaftqError {
  readonly code = 'TxnDecode';
  constructor(reason: string, options?: { cause?: unknown }) {
    super(`Cannot decode a transaction batch: ${reason}`, options);
  }
}

const utf8Encoder = new TextEncoder();
const utf8Decoder = new TextDecoder('utf-8', { fatal: true });

/**
 * `areTxnsValidated`: the caller ran validateTxn on every txn of the batch (the leader's
 * proposals: TxnCommitter validates each before it queues it), so they are not walked again —
 * every key walked twice was about 1 % of a leader's main thread. Otherwise each is validated here.
 */
export function encodeTxnBatch(batch: TxnBatch, options: { readonly areTxnsValidated?: boolean } = {}): Uint8Array {
  checkSafeCount(batch.leaderStampTsUs, 'leaderStampTsUs', '');
  let boundBytes = 1 + 2 * varintBytesMax;
  for (const txn of batch.txns) {
    if (options.areTxnsValidated !== true) validateTxn(txn);
    boundBytes += txnBytesBound(txn);
  }
  const writer = new ByteWriter(boundBytes);
  writer.byte(sharedPrefixFormat);
  writer.varint(batch.leaderStampTsUs);
  writer.varint(batch.txns.length);
  const keys = new SharedPrefixKeyWriter(writer);
  for (const txn of batch.txns) appendTxn(writer, txn, keys);
  return writer.finish();
}

export function decodeTxnBatch(data: Uint8Array): TxnBatch {
  return decodeWith(data, (reader) => {
    const keys = keyReaderFor(reader, 'batch');
    const leaderStampTsUs = reader.varint();
    const count = reader.varint();
    const txns: Txn[] = [];
    for (let i = 0; i < count; i++) txns.push(readTxn(reader, keys));
    return { leaderStampTsUs, txns };
  });
}

/** One transaction alone (for forwarding from a follower to the leader). */
export function encodeTxn(txn: Txn): Uint8Array {
  validateTxn(txn);
  const writer = new ByteWriter(1 + txnBytesBound(txn));
  writer.byte(sharedPrefixFormat);
  appendTxn(writer, txn, new SharedPrefixKeyWriter(writer));
  return writer.finish();
}

export function decodeTxn(data: Uint8Array): Txn {
  return decodeWith(data, (reader) => {
    return readTxn(reader, keyReaderFor(reader, 'txn'));
  });
}

/** Throws TxnInvalidError when the apply step could not take `txn` as it is. */
export function validateTxn(txn: Txn): void {
  if (typeof txn.txnId !== 'string' || txn.txnId.length === 0)
    throw new TxnInvalidError(String(txn.txnId), 'txnId must be a non-empty string');
  checkSafeCount(txn.startTsUs, 'startTsUs', txn.txnId);
  checkSafeCount(txn.nowMs, 'nowMs', txn.txnId);
  for (const key of txn.readKeys) checkKey(key, txn.txnId);
  txn.writes.forEach((write, at) => {
    checkKey(write.key, txn.txnId);
    if (write.kind !== 'put' && write.kind !== 'delete')
      throw new TxnInvalidError(txn.txnId, `unknown write kind ${String((write as { kind: unknown }).kind)}`);
    if (write.kind === 'put' && !(write.value instanceof Uint8Array))
      throw new TxnInvalidError(txn.txnId, 'a put needs a Uint8Array value');
    if (write.kind === 'put' && write.isNewKey !== undefined && write.isNewKey !== true)
      throw new TxnInvalidError(txn.txnId, 'isNewKey is either true or absent');
    if (write.kind === 'delete' && write.isLiveKey !== undefined && write.isLiveKey !== true)
      throw new TxnInvalidError(txn.txnId, 'isLiveKey is either true or absent');
    if (write.kind === 'delete' && write.sameCommitAsWriteBefore !== undefined) {
      const before = write.sameCommitAsWriteBefore;
      if (write.isLiveKey !== true) throw new TxnInvalidError(txn.txnId, 'sameCommitAsWriteBefore needs isLiveKey');
      if (!Number.isSafeInteger(before) || before < 1 || before > at)
        throw new TxnInvalidError(txn.txnId, `sameCommitAsWriteBefore ${before} names no earlier write`);
    }
  });
}

/** Longest varint of a safe integer (53 bits, 7 a byte). */
const varintBytesMax = 8;

/**
 * At least the bytes appendTxn writes for `txn` (one validateTxn accepted), so that a writer sized by it never grows: a batch
 * of ten 1 KiB sends grew its buffer seven times, copying it each time.
 */
export function txnBytesBound(txn: Txn): number {
  // The id is UTF-16 code units: at most 3 UTF-8 bytes each.
  let bytes = 4 * varintBytesMax + 3 * txn.txnId.length;
  // A key: its repeat distance, shared and rest lengths, and at most all of its bytes.
  for (const key of txn.readKeys) bytes += 3 * varintBytesMax + key.length;
  for (const write of txn.writes) {
    bytes += 1 + 4 * varintBytesMax + write.key.length;
    if (write.kind === 'put') bytes += write.value.length;
  }
  return bytes;
}

/** Appends a txn validateTxn accepted. */
function appendTxn(writer: ByteWriter, txn: Txn, keys: SharedPrefixKeyWriter): void {
  const id = utf8Encoder.encode(txn.txnId);
  writer.varint(id.length);
  writer.bytes(id);
  writer.varint(txn.startTsUs);
  writer.varint(txn.nowMs);
  writer.varint(txn.readKeys.length);
  keys.startTxn();
  for (const key of txn.readKeys) keys.write(key, false);
  writer.varint(txn.writes.length);
  for (const write of txn.writes) {
    writer.byte(writeKindOf(write));
    keys.write(write.key, true);
    if (write.kind === 'put') {
      writer.varint(write.value.length);
      writer.bytes(write.value);
    } else if (write.sameCommitAsWriteBefore !== undefined) writer.varint(write.sameCommitAsWriteBefore);
  }
}

function writeKindOf(write: TxnWrite): number {
  if (write.kind === 'delete') {
    if (write.sameCommitAsWriteBefore !== undefined) return writeKindDeleteLiveKeySameCommit;
    return write.isLiveKey === true ? writeKindDeleteLiveKey : writeKindDelete;
  }
  return write.isNewKey === true ? writeKindPutNewKey : writeKindPut;
}

function readTxn(reader: ByteReader, keys: KeyReader): Txn {
  const txnId = utf8Decoder.decode(reader.bytes(reader.varint()));
  const startTsUs = reader.varint();
  const nowMs = reader.varint();
  const readKeys: Uint8Array[] = [];
  const readCount = reader.varint();
  for (let i = 0; i < readCount; i++) readKeys.push(readKey(keys, txnId));
  const writes: TxnWrite[] = [];
  const writeCount = reader.varint();
  for (let i = 0; i < writeCount; i++) {
    const kind = reader.byte();
    const key = readKey(keys, txnId);
    if (kind === writeKindPut) writes.push({ kind: 'put', key, value: reader.bytes(reader.varint()) });
    else if (kind === writeKindPutNewKey)
      writes.push({ kind: 'put', key, value: reader.bytes(reader.varint()), isNewKey: true });
    else if (kind === writeKindDelete) writes.push({ kind: 'delete', key });
    else if (kind === writeKindDeleteLiveKey) writes.push({ kind: 'delete', key, isLiveKey: true });
    else if (kind === writeKindDeleteLiveKeySameCommit) {
      const sameCommitAsWriteBefore = reader.varint();
      if (sameCommitAsWriteBefore < 1 || sameCommitAsWriteBefore > i)
        throw new TxnDecodeError(`txn ${JSON.stringify(txnId)} has a delete that names no earlier write`);
      writes.push({ kind: 'delete', key, isLiveKey: true, sameCommitAsWriteBefore });
    } else throw new TxnDecodeError(`txn ${JSON.stringify(txnId)} has a write of unknown kind ${kind}`);
  }
  if (txnId.length === 0) throw new TxnDecodeError('a txn has an empty id');
  return { txnId, startTsUs, nowMs, readKeys, writes };
}

function readKey(keys: KeyReader, txnId: string): Uint8Array {
  const key = keys.read();
  if (key.length === 0 || !isWellFormedKey(key))
    throw new TxnDecodeError(`txn ${JSON.stringify(txnId)} has a key that is not an encoded tuple`);
  return key;
}

/** How many keys back a new key may take its shared prefix from: a message's families come in runs of up to three. */
const prefixBasesMax = 3;

/**
 * Writes keys in format 2. A written key that is the very array one of its txn's keys before it
 * was (a write of a key the txn read: the planners hand on the same array) is written as how many
 * keys back that was; any other as the longest prefix it shares with one of the last
 * prefixBasesMax keys, and the rest. Found by identity within the txn, by a scan: cheaper than a
 * map for the few dozen keys of a txn.
 */
class SharedPrefixKeyWriter {
  private readonly written: Uint8Array[] = [];
  private txnStart = 0;

  constructor(private readonly writer: ByteWriter) {}

  startTxn(): void {
    this.txnStart = this.written.length;
  }

  /** `mayRepeat`: a write's key, which may be one the txn read. */
  write(key: Uint8Array, mayRepeat: boolean): void {
    const { writer, written } = this;
    const count = written.length;
    const repeated = mayRepeat ? lastIndexFrom(written, key, this.txnStart) : -1;
    if (repeated >= 0) writer.varint(2 * (count - repeated) - 1);
    else {
      let base = 1;
      let shared = 0;
      for (let back = 1; back <= prefixBasesMax && back <= count; back++) {
        const other = written[count - back] as Uint8Array;
        // Only a key that also holds the best one's first differing byte can share more: most don't.
        if (back > 1 && (shared >= other.length || other[shared] !== key[shared])) continue;
        const candidate = sharedPrefixBytes(other, key);
        if (candidate > shared) {
          shared = candidate;
          base = back;
        }
      }
      writer.varint(2 * (base - 1));
      writer.varint(shared);
      writer.varint(key.length - shared);
      writer.bytesFrom(key, shared);
    }
    written.push(key);
  }
}

/** Where `key` (that very array) last is in `keys` at or after `from`; -1 if it is not. */
function lastIndexFrom(keys: readonly Uint8Array[], key: Uint8Array, from: number): number {
  for (let at = keys.length - 1; at >= from; at--) if (keys[at] === key) return at;
  return -1;
}

function sharedPrefixBytes(a: Uint8Array, b: Uint8Array): number {
  const max = Math.min(a.length, b.length);
  let shared = 0;
  while (shared < max && a[shared] === b[shared]) shared++;
  return shared;
}

interface KeyReader {
  read(): Uint8Array;
}

/** Reads the format byte and returns the reader of that format's keys. */
function keyReaderFor(reader: ByteReader, what: 'batch' | 'txn'): KeyReader {
  const format = reader.byte();
  if (format === sharedPrefixFormat) return new SharedPrefixKeyReader(reader);
  if (format === wholeKeysFormat) return { read: () => reader.bytes(reader.varint()) };
  throw new TxnDecodeError(`unknown ${what} format ${format}`);
}

/** Reads format 2 keys; a repeated key is the same array as its first reading. */
class SharedPrefixKeyReader implements KeyReader {
  private readonly keys: Uint8Array[] = [];

  constructor(private readonly reader: ByteReader) {}

  read(): Uint8Array {
    const { reader, keys } = this;
    const code = reader.varint();
    let key: Uint8Array;
    if (code % 2 === 1) {
      const back = (code + 1) / 2;
      if (back > keys.length) throw new TxnDecodeError(`a key repeats one ${back} keys back of ${keys.length}`);
      key = keys[keys.length - back] as Uint8Array;
    } else {
      const base = this.prefixBase(code / 2 + 1);
      const shared = reader.varint();
      if (shared > base.length) throw new TxnDecodeError(`a key shares ${shared} bytes with a key of ${base.length}`);
      const rest = reader.bytes(reader.varint());
      key = slabArray(shared + rest.length);
      for (let i = 0; i < shared; i++) key[i] = base[i] as number;
      key.set(rest, shared);
    }
    keys.push(key);
    return key;
  }

  /** The key `back` keys before the next one; the first key of an encoding takes an empty prefix. */
  private prefixBase(back: number): Uint8Array {
    const { keys } = this;
    if (keys.length === 0) {
      if (back !== 1) throw new TxnDecodeError(`the first key takes its prefix from one ${back} keys back`);
      return noKey;
    }
    if (back > keys.length)
      throw new TxnDecodeError(`a key takes its prefix from one ${back} keys back of ${keys.length}`);
    return keys[keys.length - back] as Uint8Array;
  }
}

/** What the first key of an encoding shares its (empty) prefix with. */
const noKey = new Uint8Array(0);

function decodeWith<T>(data: Uint8Array, read: (reader: ByteReader) => T): T {
  const reader = new ByteReader(data);
  let result: T;
  try {
    result = read(reader);
  } catch (cause) {
    if (cause instanceof TxnDecodeError) throw cause;
    throw new TxnDecodeError(cause instanceof Error ? cause.message : String(cause), { cause });
  }
  if (!reader.isAtEnd) throw new TxnDecodeError(`${data.length - reader.position} trailing bytes`);
  return result;
}

function checkSafeCount(value: number, name: string, txnId: string): void {
  if (!Number.isSafeInteger(value) || value < 0)
    throw new TxnInvalidError(txnId, `${name} must be a non-negative safe integer, got ${value}`);
}

function checkKey(key: Uint8Array, txnId: string): void {
  if (!(key instanceof Uint8Array) || key.length === 0 || !isWellFormedKey(key))
    throw new TxnInvalidError(txnId, 'every key must be a non-empty encoded tuple (key-codec.ts)');
}
