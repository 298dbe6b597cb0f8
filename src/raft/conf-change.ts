import { assert } from '../base/assert.js';
import type { ConfChange, ConfChangeKind } from './types.js';

/**
 * The encoding of a ConfChange inside a log entry of type EntryType.ConfChange:
 * version (1 byte) ‖ kind (1 byte) ‖ nodeId length (u16 BE) ‖ nodeId (UTF-8) ‖ context.
 * The runtime decodes it when it applies the entry and then calls RawNode.applyConfChange.
 */
const formatVersion = 1;
const kinds: readonly ConfChangeKind[] = ['addLearner', 'addVoter', 'removeNode'];
const utf8Encoder = new TextEncoder();
const utf8Decoder = new TextDecoder('utf-8', { fatal: true });

export function encodeConfChange(change: ConfChange): Uint8Array {
  const id = utf8Encoder.encode(change.nodeId);
  assert(id.length > 0 && id.length <= 0xffff, () => `conf change node id length ${id.length}`);
  const out = new Uint8Array(4 + id.length + change.context.length);
  out[0] = formatVersion;
  out[1] = kinds.indexOf(change.kind);
  out[2] = id.length >>> 8;
  out[3] = id.length & 0xff;
  out.set(id, 4);
  out.set(change.context, 4 + id.length);
  return out;
}

export function decodeConfChange(data: Uint8Array): ConfChange {
  assert(data.length >= 4 && data[0] === formatVersion, 'conf change entry: unknown format');
  const kind = kinds[data[1] as number];
  assert(kind !== undefined, () => `conf change entry: unknown kind ${data[1]}`);
  const idLength = ((data[2] as number) << 8) | (data[3] as number);
  assert(data.length >= 4 + idLength, 'conf change entry: truncated node id');
  const nodeId = utf8Decoder.decode(data.subarray(4, 4 + idLength));
  return { kind, nodeId, context: data.slice(4 + idLength) };
}
