/**
 * Request bodies as text without loss: bytes that are not valid UTF-8 are refused, never replaced
 * with U+FFFD (which is an allowed message character, so a replaced body would be stored as if the
 * client had sent it). A byte-order mark is kept as a character, so nothing is dropped either.
 */

const fatalDecoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

export type StrictUtf8 = { readonly text: string } | { readonly invalidOffset: number; readonly invalidByte: number };

export function decodeStrictUtf8(bytes: Uint8Array): StrictUtf8 {
  try {
    return { text: fatalDecoder.decode(bytes) };
  } catch {
    const invalidOffset = firstInvalidOffset(bytes);
    return { invalidOffset, invalidByte: bytes[invalidOffset] ?? 0 };
  }
}

/**
 * Where decoding fails, for the error message. A streaming decode holds back an incomplete
 * sequence at the end of a prefix instead of failing on it, so "this prefix fails" is monotonic in
 * the prefix length and a binary search finds the shortest failing prefix: the failure is at its
 * last byte. A body that fails only because it ends inside a sequence fails at that sequence's
 * lead byte. Only requests already refused pay for the search.
 */
function firstInvalidOffset(bytes: Uint8Array): number {
  if (isValidPrefix(bytes)) {
    let lead = bytes.byteLength - 1;
    while (lead > 0 && bytes.byteLength - lead < 4 && ((bytes[lead] ?? 0) & 0xc0) === 0x80) lead--;
    return Math.max(0, lead);
  }
  let good = 0;
  let bad = bytes.byteLength;
  while (bad - good > 1) {
    const mid = good + Math.floor((bad - good) / 2);
    if (isValidPrefix(bytes.subarray(0, mid))) good = mid;
    else bad = mid;
  }
  return bad - 1;
}

function isValidPrefix(prefix: Uint8Array): boolean {
  try {
    new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(prefix, { stream: true });
    return true;
  } catch {
    return false;
  }
}
