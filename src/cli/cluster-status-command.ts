/**
 * `raftq status --cluster [--output table|json]` (docs/OPERATIONS.md, "Status"): every member in
 * one table from the admin port's GET /cluster — role, term, commit and applied index, lag, the
 * leader's match index and when the leader last heard from it. Any node may be asked: GET /cluster
 * takes the match index and last contact from the leader's own view.
 */
import { adminCall } from './admin-client.js';
import { formatAge } from './queue-commands.js';
import { formatTable, type TableColumn } from './text-table.js';

/** What the table reads of a GET /cluster member (src/admin/cluster-route.ts ClusterMember). */
interface MemberRow {
  id: string;
  address: string;
  membership: string;
  isSelf: boolean;
  health: string;
  role?: string;
  term?: number;
  commitIndex?: number;
  appliedIndex?: number;
  lagEntries?: number;
  matchIndex?: number;
  lastContactMs?: number | null;
}

interface ClusterAnswer {
  id: string;
  leader: string;
  term: number;
  progressFrom: string;
  members: MemberRow[];
}

const numberOrDash = (value: number | undefined): string => (value === undefined ? '-' : String(value));

const memberColumns: readonly TableColumn<MemberRow>[] = [
  // The node that answered is marked, as the one the figures without a leader's view come from.
  { header: 'ID', value: (m) => (m.isSelf ? `${m.id}*` : m.id) },
  { header: 'ADDRESS', value: (m) => m.address },
  { header: 'ROLE', value: (m) => roleText(m) },
  { header: 'TERM', value: (m) => numberOrDash(m.term), alignRight: true },
  { header: 'COMMIT', value: (m) => numberOrDash(m.commitIndex), alignRight: true },
  { header: 'APPLIED', value: (m) => numberOrDash(m.appliedIndex), alignRight: true },
  { header: 'LAG', value: (m) => numberOrDash(m.lagEntries), alignRight: true },
  { header: 'MATCH', value: (m) => numberOrDash(m.matchIndex), alignRight: true },
  { header: 'LAST CONTACT', value: (m) => lastContactText(m), alignRight: true },
  { header: 'HEALTH', value: (m) => m.health },
];

export async function clusterStatus(
  admin: string,
  adminToken: string,
  output: 'table' | 'json',
  write: (text: string) => void,
): Promise<void> {
  const answer = (await adminCall(admin, 'GET', '/cluster', { adminToken })) as ClusterAnswer;
  if (output === 'json') return write(`${JSON.stringify(answer, null, 2)}\n`);
  const seenBy =
    answer.progressFrom === ''
      ? 'no leader answered: no match index or last contact'
      : `match and last contact as ${answer.progressFrom} (the leader) sees them`;
  write(
    `leader ${answer.leader === '' ? 'none' : answer.leader}, term ${answer.term}; asked ${answer.id} (*); ${seenBy}\n`,
  );
  write(formatTable(memberColumns, answer.members));
}

function roleText(member: MemberRow): string {
  const role = member.role ?? '-';
  return member.membership === 'learner' && role !== 'learner' ? `${role} (learner)` : role;
}

/** "-" for the leader itself and when no leader's view is known; "never" when the leader never heard from it. */
function lastContactText(member: MemberRow): string {
  if (member.lastContactMs === undefined || member.role === 'leader') return '-';
  if (member.lastContactMs === null) return 'never';
  return formatDurationMs(member.lastContactMs);
}

/** 35ms, 4.2s, then as formatAge: 5m12s, 3h04m. */
export function formatDurationMs(ms: number): string {
  const rounded = Math.round(ms);
  if (rounded < 1000) return `${rounded}ms`;
  if (rounded < 60_000) return `${(rounded / 1000).toFixed(1)}s`;
  return formatAge(Math.floor(rounded / 1000));
}
