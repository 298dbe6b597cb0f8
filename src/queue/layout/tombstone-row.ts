/**
 * The row of a superseded generation ("tomb", name, generation) that the reaper must clear: JSON
 * { atMs }, when the generation was superseded (its key is all the reaper reads).
 */
const encoder = new TextEncoder();

export function encodeTombstone(atMs: number): Uint8Array {
  return encoder.encode(JSON.stringify({ atMs }));
}
