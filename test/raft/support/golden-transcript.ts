import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';

/**
 * Golden transcripts: a scenario's transcript is compared, line for line, with the one checked in
 * under test/raft/testdata/<name>.txt, so that a change of Raft behaviour (a message more or less,
 * another term, a commit one round later) shows up as a diff in review even when the scenario's
 * own assertions still hold. With RAFTQ_UPDATE_GOLDEN=1 (`npm run test:golden-update`) the files
 * are written instead of compared; review their diff like code.
 */

/** Where the transcripts live, relative to the repository root (for messages). */
export const goldenFolder = 'test/raft/testdata';
const folderUrl = new URL('../testdata/', import.meta.url);
const updateCommand = 'npm run test:golden-update';
/** Lines of unchanged context around each change, as in `diff -u`. */
const contextLines = 3;
/** Diff lines shown before the rest is summed up. */
const shownLinesMax = 200;
/** Beyond this many line pairs the middle is not aligned; the first difference is shown instead. */
const alignedCellsMax = 4_000_000;

/** Names checked in this process: two scenarios writing one file would hide each other. */
const namesSeen = new Set<string>();

export function isUpdatingGolden(): boolean {
  return process.env['RAFTQ_UPDATE_GOLDEN'] === '1';
}

/**
 * Checks `transcript` against test/raft/testdata/`name`.txt (or writes it, when updating). Throws
 * with a unified diff (- checked in, + now) when they differ, and when there is no file yet.
 */
export function expectGoldenTranscript(name: string, transcript: readonly string[]): void {
  if (!/^[a-z0-9]+(-[a-z0-9]+)*$/.test(name))
    throw new Error(`golden transcript name '${name}': lowercase words joined by '-'`);
  if (namesSeen.has(name)) throw new Error(`golden transcript name '${name}' is used twice`);
  namesSeen.add(name);
  const fileUrl = new URL(`${name}.txt`, folderUrl);
  const text = `${transcript.join('\n')}\n`;
  const path = `${goldenFolder}/${name}.txt`;
  if (isUpdatingGolden()) {
    mkdirSync(folderUrl, { recursive: true });
    writeFileSync(fileUrl, text);
    return;
  }
  if (!existsSync(fileUrl))
    throw new Error(`no golden transcript ${path}: run \`${updateCommand}\` to write it, then review and commit it`);
  // A checkout that turned line ends into CRLF changes no behaviour.
  const expected = readFileSync(fileUrl, 'utf8').replace(/\r\n/g, '\n');
  if (expected === text) return;
  throw new GoldenTranscriptMismatchError(
    `the transcript differs from ${path} (- checked in, + now).\n` +
      `If the change of Raft behaviour is intended, run \`${updateCommand}\` and commit the new transcript with the change.\n` +
      unifiedDiff(expected.replace(/\n$/, '').split('\n'), transcript),
  );
}

/** A transcript that differs from its golden copy; the message holds the diff, so the whole transcript need not be printed too. */
export class GoldenTranscriptMismatchError extends Error {
  override readonly name = 'GoldenTranscriptMismatchError';
}

type Edit = { readonly kind: ' ' | '-' | '+'; readonly line: string; readonly oldNo: number; readonly newNo: number };

/** The edits that turn `before` into `after`: common prefix and suffix, and a longest common subsequence in between. */
function lineEdits(before: readonly string[], after: readonly string[]): Edit[] {
  let start = 0;
  while (start < before.length && start < after.length && before[start] === after[start]) start++;
  let endBefore = before.length;
  let endAfter = after.length;
  while (endBefore > start && endAfter > start && before[endBefore - 1] === after[endAfter - 1]) {
    endBefore--;
    endAfter--;
  }
  const edits: Edit[] = [];
  for (let i = 0; i < start; i++) edits.push({ kind: ' ', line: before[i]!, oldNo: i + 1, newNo: i + 1 });
  const n = endBefore - start;
  const m = endAfter - start;
  if (n * m <= alignedCellsMax) {
    // lcs[i][j]: length of the longest common subsequence of before[start+i..] and after[start+j..].
    const width = m + 1;
    const lcs = new Uint32Array((n + 1) * width);
    for (let i = n - 1; i >= 0; i--) {
      for (let j = m - 1; j >= 0; j--) {
        lcs[i * width + j] =
          before[start + i] === after[start + j]
            ? lcs[(i + 1) * width + j + 1]! + 1
            : Math.max(lcs[(i + 1) * width + j]!, lcs[i * width + j + 1]!);
      }
    }
    let i = 0;
    let j = 0;
    while (i < n || j < m) {
      if (i < n && j < m && before[start + i] === after[start + j]) {
        edits.push({ kind: ' ', line: before[start + i]!, oldNo: start + i + 1, newNo: start + j + 1 });
        i++;
        j++;
      } else if (i < n && (j === m || lcs[(i + 1) * width + j]! >= lcs[i * width + j + 1]!)) {
        // Removals before additions at a tie, as `diff -u` shows them.
        edits.push({ kind: '-', line: before[start + i]!, oldNo: start + i + 1, newNo: start + j });
        i++;
      } else {
        edits.push({ kind: '+', line: after[start + j]!, oldNo: start + i, newNo: start + j + 1 });
        j++;
      }
    }
  } else {
    for (let i = start; i < endBefore; i++) edits.push({ kind: '-', line: before[i]!, oldNo: i + 1, newNo: start });
    for (let j = start; j < endAfter; j++) edits.push({ kind: '+', line: after[j]!, oldNo: endBefore, newNo: j + 1 });
  }
  for (let i = endBefore, j = endAfter; i < before.length; i++, j++)
    edits.push({ kind: ' ', line: before[i]!, oldNo: i + 1, newNo: j + 1 });
  return edits;
}

/** A `diff -u` style rendering: hunks of changes with their line numbers and some context. */
export function unifiedDiff(before: readonly string[], after: readonly string[]): string {
  const edits = lineEdits(before, after);
  const out: string[] = [];
  let shown = 0;
  let k = 0;
  while (k < edits.length) {
    if (edits[k]!.kind === ' ') {
      k++;
      continue;
    }
    // A hunk: from `contextLines` before this change to `contextLines` after the last change that
    // is at most 2 × contextLines unchanged lines further on.
    const from = Math.max(0, k - contextLines);
    let to = k;
    let quiet = 0;
    for (let e = k; e < edits.length && quiet <= 2 * contextLines; e++) {
      if (edits[e]!.kind === ' ') quiet++;
      else {
        quiet = 0;
        to = e;
      }
    }
    const end = Math.min(edits.length, to + 1 + contextLines);
    const hunk = edits.slice(from, end);
    const oldCount = hunk.filter((e) => e.kind !== '+').length;
    const newCount = hunk.filter((e) => e.kind !== '-').length;
    const first = hunk[0]!;
    const oldStart = first.kind === '+' ? first.oldNo + 1 : first.oldNo;
    const newStart = first.kind === '-' ? first.newNo + 1 : first.newNo;
    out.push(`@@ -${oldStart},${oldCount} +${newStart},${newCount} @@`);
    for (const e of hunk) {
      if (shown === shownLinesMax) break;
      out.push(`${e.kind} ${e.line}`);
      shown++;
    }
    if (shown === shownLinesMax) {
      const changed = edits.filter((e) => e.kind !== ' ').length;
      out.push(
        `… cut at ${shownLinesMax} lines; ${changed} lines changed in all (update, then read \`git diff ${goldenFolder}\`)`,
      );
      break;
    }
    k = end;
  }
  return out.join('\n');
}
