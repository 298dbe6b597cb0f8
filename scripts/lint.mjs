// Runs the project's lint rules over src/ and exits non-zero on any problem.
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { lintFile } from './lint-rules.mjs';

const root = new URL('..', import.meta.url).pathname;
function* walk(dir) {
  for (const name of readdirSync(dir)) {
    const full = join(dir, name);
    if (statSync(full).isDirectory()) {
      if (name !== 'gen') yield* walk(full);
    } else if (name.endsWith('.ts') && !name.endsWith('.d.ts')) yield full;
  }
}
const problems = [];
for (const file of walk(join(root, 'src'))) problems.push(...lintFile(relative(root, file), readFileSync(file, 'utf8')));
for (const p of problems) console.error(p);
console.log(`lint: ${problems.length} problem(s)`);
process.exit(problems.length === 0 ? 0 : 1);
