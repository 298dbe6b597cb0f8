// Runs the project's lint rules and exits non-zero on any problem: over src/ the determinism and
// import rules, and over every source file of src/, test/, scripts/, bench/, jepsen-like/ and .ci/
// the rule that no path leaves the repository.
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { lintFile } from './lint-rules.mjs';

const root = new URL('..', import.meta.url).pathname;
const roots = ['src', 'test', 'scripts', 'bench', 'jepsen-like', '.ci'];
/** Generated or third-party trees, and measurement output: not source. */
const skippedFolders = new Set(['gen', 'node_modules', 'dist', 'results', '__pycache__']);
const sourceFile = /(\.[cm]?[jt]s|\.py|\.sh)$/;

function* walk(dir, isScriptFolder) {
  for (const name of readdirSync(dir)) {
    const full = join(dir, name);
    if (statSync(full).isDirectory()) {
      if (!skippedFolders.has(name)) yield* walk(full, isScriptFolder);
    } else if ((sourceFile.test(name) || (isScriptFolder && !name.includes('.'))) && !name.endsWith('.d.ts')) yield full;
  }
}
const problems = [];
for (const top of roots) {
  // .ci holds extensionless shell scripts.
  for (const file of walk(join(root, top), top === '.ci')) problems.push(...lintFile(relative(root, file), readFileSync(file, 'utf8')));
}
for (const p of problems) console.error(p);
console.log(`lint: ${problems.length} problem(s)`);
process.exit(problems.length === 0 ? 0 : 1);
