/**
 * Rewrites the generated "Latest run" section of docs/BENCHMARKS.md from a results file that
 * `npm run bench` wrote without `--write-docs` (a long run whose figures turned out to be the ones
 * to publish):
 *
 *   npm run bench:write-docs -- bench/results/2026-12-06T15-38-00Z.json
 */
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { benchResultProblems, type BenchResult } from './report/bench-result.js';
import { updateBenchmarksDoc } from './report/benchmarks-doc.js';
import { repoRoot } from './systems/peer-process.js';

function main(): void {
  const [resultPath] = process.argv.slice(2);
  if (resultPath === undefined) {
    process.stderr.write('usage: npm run bench:write-docs -- RESULTS.json\n');
    process.exitCode = 2;
    return;
  }
  const result: unknown = JSON.parse(readFileSync(resultPath, 'utf8'));
  const problems = benchResultProblems(result);
  if (problems.length > 0) {
    process.stderr.write(`not a bench result file: ${problems.slice(0, 5).join('; ')}\n`);
    process.exitCode = 1;
    return;
  }
  const docPath = join(repoRoot, 'docs', 'BENCHMARKS.md');
  updateBenchmarksDoc(docPath, result as BenchResult, resolve(resultPath));
  process.stdout.write(`updated ${docPath} from ${resultPath}\n`);
}

main();
