// Puts a run's tables into docs/BENCHMARKS.md, between the markers of the "Side by side" section,
// leaving every other line of the document as it was.
import { readFileSync, writeFileSync } from 'node:fs';
import { relative, dirname } from 'node:path';
import type { BenchResult } from './bench-result.js';
import { DocMarkersMissingError, replaceGeneratedBlock } from './generated-block.js';
import { formatRatioMarkdown } from './ratio-table.js';
import { formatResultsMarkdown } from './results-table.js';
import { formatMarkdownTable } from './text-table.js';

export const generatedStart = '<!-- side-by-side:generated:start -->';
export const generatedEnd = '<!-- side-by-side:generated:end -->';

export { DocMarkersMissingError };

export function renderGeneratedSection(result: BenchResult, resultFile: string): string {
  const systems = formatMarkdownTable({
    header: ['system', 'configuration', 'durability', 'status'],
    rows: result.systems.map((s) => [
      s.id,
      s.label,
      s.durability,
      s.status === 'ran' ? `ran (ready in ${s.startSeconds?.toFixed(0) ?? '?'} s)` : `${s.status}: ${s.reason ?? ''}`,
    ]),
  });
  const loads = result.cells.map((c) => c.machineLoad1m);
  const loadNote =
    loads.length === 0
      ? ''
      : ` The machine's one-minute load average ran from ${Math.min(...loads).toFixed(1)} to ${Math.max(...loads).toFixed(1)} during the cells (2 cores: anything above 2 means other work competed with the bench).`;
  return [
    `Run of ${result.startedAt} (${result.options.quick ? '`npm run bench -- --quick`' : '`npm run bench`'}, ${result.host.cpus} cores, Node ${result.host.node}); raw figures in \`${resultFile}\`.${loadNote}`,
    '',
    systems,
    '',
    'raftq ÷ peer, messages per second (above 1: raftq moved more; `*`: one side was client-bound):',
    '',
    formatRatioMarkdown(result.ratios),
    '',
    '<details><summary>Every measurement</summary>',
    '',
    formatResultsMarkdown(result.cells),
    '',
    '</details>',
  ].join('\n');
}

/** The document with the generated block replaced; throws when the markers are missing. */
export function replaceGeneratedSection(doc: string, generated: string, docPath = 'docs/BENCHMARKS.md'): string {
  return replaceGeneratedBlock(doc, { start: generatedStart, end: generatedEnd }, generated, docPath);
}

export function updateBenchmarksDoc(docPath: string, result: BenchResult, resultPath: string): void {
  const doc = readFileSync(docPath, 'utf8');
  const resultFile = relative(dirname(dirname(docPath)), resultPath);
  writeFileSync(docPath, replaceGeneratedSection(doc, renderGeneratedSection(result, resultFile), docPath));
}
