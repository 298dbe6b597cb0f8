/**
 * The oldest Node.js a node runs on, checked before anything that needs it is loaded, so an older
 * runtime gets one sentence rather than a link error from deep inside the storage code.
 * zlib.crc32 (sealed log values, snapshot chunks, backups) arrived in Node.js 20.15.0;
 * package.json's `engines` says the same (a test keeps the two equal).
 */
export const nodeVersionMinimum = '20.15.0';

/** Why `version` (e.g. process.versions.node, "20.14.0") is too old, or null when it is not. */
export function nodeVersionProblem(version: string): string | null {
  const have = parseVersion(version);
  const need = parseVersion(nodeVersionMinimum);
  if (have === null || need === null) return null;
  for (let i = 0; i < 3; i++) {
    if ((have[i] as number) > (need[i] as number)) return null;
    if ((have[i] as number) < (need[i] as number)) {
      return `Node.js ${nodeVersionMinimum} or newer is needed (for zlib.crc32); this is Node.js ${version}`;
    }
  }
  return null;
}

/** Throws when the running Node.js is older than nodeVersionMinimum. */
export function requireSupportedNodeVersion(version: string = process.versions.node): void {
  const problem = nodeVersionProblem(version);
  if (problem !== null) throw new Error(problem);
}

function parseVersion(version: string): [number, number, number] | null {
  const match = /^v?(\d+)\.(\d+)\.(\d+)/.exec(version);
  return match === null ? null : [Number(match[1]), Number(match[2]), Number(match[3])];
}
