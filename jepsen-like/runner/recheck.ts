#!/usr/bin/env node
import { readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { readHistoryFile } from '../history/history-file.js';
import { pairOperations } from '../history/operation-pairs.js';
import { faultWindows, largestClockSpreadMs, readNemesisLog } from '../nemesis/nemesis-event.js';
import { renderReportHtml } from '../report/report-html.js';
import { runValidity, type RunResults } from '../report/run-results.js';
import { makeWorkload, verdictLine } from './run-jepsen.js';
import { defaultRunOptions, workloadNames, type WorkloadName } from './run-options.js';

/**
 * `node dist/jepsen-like/runner/recheck.js STORE/RUN`: runs the checkers again over a stored
 * run's history.jsonl and nemesis.jsonl (after a checker changed, or to look again), and rewrites
 * its results.json and report.html. The cluster is not involved.
 */
function main(argv: readonly string[]): number {
  const dir = argv[0];
  if (dir === undefined) {
    console.error('usage: recheck.js STORE/RUN');
    return 64;
  }
  const runDir = resolve(dir);
  const previous = JSON.parse(readFileSync(join(runDir, 'results.json'), 'utf8')) as RunResults;
  const history = readHistoryFile(join(runDir, 'history.jsonl'));
  const events = readNemesisLog(join(runDir, 'nemesis.jsonl'));
  const pairs = pairOperations(history);
  const clockAllowanceMs = defaultRunOptions.clockAllowanceMsBase + largestClockSpreadMs(events);
  const names = previous.run.workloads.filter((w): w is WorkloadName =>
    (workloadNames as readonly string[]).includes(w),
  );
  const workloads = Object.fromEntries(
    names.map((name) => [
      name,
      makeWorkload(name, defaultRunOptions).check(pairs, { clockAllowanceMs, nowMs: () => performance.now() }),
    ]),
  );
  // The cluster checker's facts (exits, drains, replica states, node logs) are not in the history:
  // its stored result stands. A run stored before it existed has none, and is judged on its history.
  const clusterValid = (previous as Partial<RunResults>).cluster?.valid ?? true;
  const results: RunResults = {
    ...previous,
    workloads,
    valid: runValidity(
      Object.values(workloads).map((w) => w.valid),
      clusterValid,
      previous.runErrors,
    ),
  };
  writeFileSync(join(runDir, 'results.json'), `${JSON.stringify(results, null, 2)}\n`);
  const endMs = history.length > 0 ? (history[history.length - 1]?.timeMs ?? 0) : 0;
  writeFileSync(
    join(runDir, 'report.html'),
    renderReportHtml({ results, pairs, windows: faultWindows(events), endMs }),
  );
  console.log(verdictLine(results, pairs.length, runDir));
  return results.valid === true ? 0 : results.valid === false ? 1 : 2;
}

process.exitCode = main(process.argv.slice(2));
