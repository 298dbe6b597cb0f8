/**
 * The binary form of transactions in Raft entries (and in forwarding): deterministic, compact,
 * no JSON. Message bodies travel as raw bytes and decode as views into the entry (no copy).
 *
 * Batch (one Raft entry's data):
 *   u8 format (1) · varint leaderStampTsUs · varint txnCount · txn*
 * Txn:
 *   varint idBytes · utf8 id · varint startTsUs · varint nowMs
 *   · varint readCount · (varint keyBytes · key)*
 *   · varint writeCount · (u8 kind: 1 put, 2 put of a new key, 0 delete, 3 delete of a live key,
 *     4 delete of a live key committed with an earlier write's key
 *     · varint keyBytes · key · [varint valueBytes · value] · [varint writesBefore])*
 *
 * Encoding validates what the apply step relies on (keys are non-empty encoded tuples, numbers
 * are non-negative safe integers), so a malformed transaction is refused at the proposer and
 * never reaches the log. Decoding validates the same, so a corrupt entry is reported, not applied.
 */
import { RaftqError } from '../base/errors.js';
import { ByteReader } from './byte-reader.js';
import { ByteWriter } from './byte-writer.js';
import { isWellFormedKey } from './key-codec.js';
import type { Txn, TxnWrite } from './txn.js';

const batchFormat = 1;
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
  writer.byte(batchFormat);
  writer.varint(batch.leaderStampTsUs);
  writer.varint(batch.txns.length);
  for (const txn of batch.txns) appendTxn(writer, txn);
  return writer.finish();
}

export function decodeTxnBatch(data: Uint8Array): TxnBatch {
  return decodeWith(data, (reader) => {
    const format = reader.byte();
    if (format !== batchFormat) throw new TxnDecodeError(`unknown batch format ${format}`);
    const leaderStampTsUs = reader.varint();
    const count = reader.varint();
    const txns: Txn[] = [];
    for (let i = 0; i < count; i++) txns.push(readTxn(reader));
    return { leaderStampTsUs, txns };
  });
}

/** One transaction alone (for forwarding from a follower to the leader). */
export function encodeTxn(txn: Txn): Uint8Array {
  validateTxn(txn);
  const writer = new ByteWriter(1 + txnBytesBound(txn));
  writer.byte(batchFormat);
  appendTxn(writer, txn);
  return writer.finish();
}

export function decodeTxn(data: Uint8Array): Txn {
  return decodeWith(data, (reader) => {
    const format = reader.byte();
    if (format !== batchFormat) throw new TxnDecodeError(`unknown txn format ${format}`);
    return readTxn(reader);
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
  for (const key of txn.readKeys) bytes += varintBytesMax + key.length;
  for (const write of txn.writes) {
    bytes += 1 + 2 * varintBytesMax + write.key.length;
    if (write.kind === 'put') bytes += write.value.length;
  }
  return bytes;
}

/** Appends a txn validateTxn accepted. */
function appendTxn(writer: ByteWriter, txn: Txn): void {
  const id = utf8Encoder.encode(txn.txnId);
  writer.varint(id.length);
  writer.bytes(id);
  writer.varint(txn.startTsUs);
  writer.varint(txn.nowMs);
  writer.varint(txn.readKeys.length);
  for (const key of txn.readKeys) {
    writer.varint(key.length);
    writer.bytes(key);
  }
  writer.varint(txn.writes.length);
  for (const write of txn.writes) {
    writer.byte(writeKindOf(write));
    writer.varint(write.key.length);
    writer.bytes(write.key);
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

function readTxn(reader: ByteReader): Txn {
  const txnId = utf8Decoder.decode(reader.bytes(reader.varint()));
  const startTsUs = reader.varint();
  const nowMs = reader.varint();
  const readKeys: Uint8Array[] = [];
  const readCount = reader.varint();
  for (let i = 0; i < readCount; i++) readKeys.push(readKey(reader, txnId));
  const writes: TxnWrite[] = [];
  const writeCount = reader.varint();
  for (let i = 0; i < writeCount; i++) {
    const kind = reader.byte();
    const key = readKey(reader, txnId);
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

function readKey(reader: ByteReader, txnId: string): Uint8Array {
  const key = reader.bytes(reader.varint());
  if (key.length === 0 || !isWellFormedKey(key))
    throw new TxnDecodeError(`txn ${JSON.stringify(txnId)} has a key that is not an encoded tuple`);
  return key;
}

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
