import { allLimitGroups, type Limit } from '../src/base/limits.js';

const groupTitles: Record<keyof typeof allLimitGroups, string> = {
  sqs: 'SQS limits (as AWS defines them)',
  raftq: "raftq's own limits",
  raft: 'Raft and cluster runtime',
};

/** Renders docs/LIMITS.md from src/base/limits.ts, the single source of every limit. */
export function renderLimitsDoc(): string {
  const lines = [
    '# Limits',
    '',
    'Every limit raftq enforces, its unit and why it has that value. Generated from',
    '`src/base/limits.ts` by `npm run limits:doc`; edit that file, not this one.',
    '',
  ];
  for (const [group, limits] of Object.entries(allLimitGroups) as [
    keyof typeof allLimitGroups,
    Record<string, Limit>,
  ][]) {
    lines.push(`## ${groupTitles[group]}`, '', '| name | value | unit | reason |', '|---|---:|---|---|');
    for (const [name, limit] of Object.entries(limits)) {
      lines.push(
        `| \`${name}\` | ${limit.value.toLocaleString('en-US')} | ${limit.unit} | ${limit.reason.replaceAll('|', '\\|')} |`,
      );
    }
    lines.push('');
  }
  return lines.join('\n');
}
