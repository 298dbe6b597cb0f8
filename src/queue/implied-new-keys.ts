/**
 * What the storage layer may assume about keys a send never writes (MvccStoreOptions.impliedNewKeys):
 * a data row written under a freshly minted message id (TxnWrite.isNewKey) means that id's
 * receive-state row has never existed either. The store remembers it as absent, so the message's
 * first receive, and the validation of that receive, do not seek LevelDB for a row that is not
 * there (once per consumed message). Only a cache hint: nothing a replica decides depends on it.
 *
 * It runs for every key a send vouches new, so it works on the bytes: a data key is
 * ("q", name, "g", generation, "data", partition, id) and its state key the same tuple with
 * "state" for "data" (key-layout.ts); in the tuple encoding (storage/key-codec.ts) a string
 * element is 0x02, its escaped bytes (never 0x00), then 0x00, and an integer is 0x14 + n and n bytes.
 */
import { slabArray } from '../storage/byte-slab.js';
import { isQueueKey } from './layout/key-layout.js';

const none: readonly Uint8Array[] = [];
const stringTag = 0x02;
const integerTagZero = 0x14;
const integerTagMax = integerTagZero + 8;
const dataFamily = Uint8Array.of(stringTag, 0x64, 0x61, 0x74, 0x61, 0x00); // "data"
const stateFamily = Uint8Array.of(stringTag, 0x73, 0x74, 0x61, 0x74, 0x65, 0x00); // "state"
const generationMarker = Uint8Array.of(stringTag, 0x67, 0x00); // "g"

export function impliedNewQueueKeys(newKey: Uint8Array): readonly Uint8Array[] {
  if (!isQueueKey(newKey)) return none;
  // After "q": the queue name, a string element.
  let at = 3;
  if (newKey[at] !== stringTag) return none;
  at = newKey.indexOf(0x00, at + 1);
  if (at < 0) return none;
  at += 1;
  if (!startsWithAt(newKey, at, generationMarker)) return none;
  at += generationMarker.length;
  const generationTag = newKey[at];
  if (generationTag === undefined || generationTag < integerTagZero || generationTag > integerTagMax) return none;
  at += 1 + (generationTag - integerTagZero);
  if (!startsWithAt(newKey, at, dataFamily)) return none;
  // Short-lived (the absent-key set copies it), so cut from a slab rather than given a buffer of its own.
  const stateKey = slabArray(newKey.length - dataFamily.length + stateFamily.length);
  stateKey.set(newKey.subarray(0, at), 0);
  stateKey.set(stateFamily, at);
  stateKey.set(newKey.subarray(at + dataFamily.length), at + stateFamily.length);
  return [stateKey];
}

function startsWithAt(bytes: Uint8Array, at: number, expected: Uint8Array): boolean {
  if (at + expected.length > bytes.length) return false;
  for (let i = 0; i < expected.length; i++) if (bytes[at + i] !== expected[i]) return false;
  return true;
}
