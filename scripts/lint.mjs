// Runs the project's lint rules and exits non-zero on any problem: over src/ the determinism,
// import and assert-message rules; over every source file of src/, test/, scripts/, bench/, jepsen-like/ and .ci/
// the rule that no path leaves the repository; over those and every Markdown file, the rule that
// documents and traps they cite exist; and over docs/TRAPS.md, that the tests it lists exist.
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { basename, join, relative } from 'node:path';
import {
  lintDocumentReferences,
  lintFile,
  lintTrapsDocument,
  trapNumbersOf,
  trapsDocumentPath,
} from './lint-rules.mjs';

const root = new URL('..', import.meta.url).pathname;
const roots = ['src', 'test', 'scripts', 'bench', 'jepsen-like', '.ci', 'proto'];
/** Generated or third-party trees, and measurement output: not source. */
const skippedFolders = new Set(['gen', 'node_modules', 'dist', 'results', '__pycache__']);
/** Trees that hold no file a reference may name. */
const foreignFolders = new Set(['node_modules', 'dist', '.git']);
const sourceFile = /(\.[cm]?[jt]s|\.py|\.sh|\.proto)$/;

function* walk(dir, isScriptFolder) {
  for (const name of readdirSync(dir)) {
    const full = join(dir, name);
    if (statSync(full).isDirectory()) {
      if (!skippedFolders.has(name)) yield* walk(full, isScriptFolder);
    } else if ((sourceFile.test(name) || (isScriptFolder && !name.includes('.'))) && !name.endsWith('.d.ts'))
      yield full;
  }
}

/** Every file of the repository, relative to its root. */
function* repositoryFiles(dir) {
  for (const name of readdirSync(dir)) {
    const full = join(dir, name);
    if (statSync(full).isDirectory()) {
      if (!foreignFolders.has(name)) yield* repositoryFiles(full);
    } else yield relative(root, full);
  }
}

const files = new Set(repositoryFiles(root));
const baseNames = new Set([...files].map((f) => basename(f)));
const trapsDocument = existsSync(join(root, trapsDocumentPath))
  ? readFileSync(join(root, trapsDocumentPath), 'utf8')
  : '';
const repository = {
  hasFile: (relPath) => files.has(relPath),
  hasBaseName: (name) => baseNames.has(name),
  trapNumbers: trapNumbersOf(trapsDocument),
  readFile: (relPath) => (files.has(relPath) ? readFileSync(join(root, relPath), 'utf8') : undefined),
};

const problems = [];
for (const top of roots) {
  // .ci holds extensionless shell scripts.
  for (const file of walk(join(root, top), top === '.ci')) {
    const relPath = relative(root, file);
    const text = readFileSync(file, 'utf8');
    problems.push(...lintFile(relPath, text), ...lintDocumentReferences(relPath, text, repository));
  }
}
for (const relPath of [...files].filter((f) => f.endsWith('.md')).sort()) {
  problems.push(...lintDocumentReferences(relPath, readFileSync(join(root, relPath), 'utf8'), repository));
}
problems.push(...lintTrapsDocument(trapsDocument, repository));
for (const p of problems) console.error(p);
console.log(`lint: ${problems.length} problem(s)`);
process.exit(problems.length === 0 ? 0 : 1);
