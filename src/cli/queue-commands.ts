/**
 * The queue commands, over a node's admin port (docs/OPERATIONS.md, "Queues"):
 *   raftq queues [--output table|json]             one row per queue: type, counts, oldest age, DLQ
 *   raftq peek QUEUE [--limit N] [--output …]      messages as they are, without receiving them
 *   raftq purge QUEUE                              delete every message
 *   raftq redrive DLQ [--destination Q] [--rate N] move a dead-letter queue's messages back
 *   raftq send QUEUE BODY [--group-id G] …         send a test message
 */
import { adminCall } from './admin-client.js';
import { numberFlag, parseFlags, stringFlag, UsageError, type FlagSpec, type FlagValues } from './flags.js';
import { formatTable, type TableColumn } from './text-table.js';

const connectionFlags: readonly FlagSpec[] = [
  { name: 'admin', kind: 'string', description: 'Admin address of the node to ask', defaultText: '127.0.0.1:9325' },
  { name: 'admin-token', kind: 'string', description: "The node's --admin-token, when its admin port has one" },
  {
    name: 'output',
    kind: 'string',
    description: "table (readable) or json (the admin API's answer)",
    defaultText: 'table',
  },
];

export const queueCommandFlags: Readonly<Record<string, readonly FlagSpec[]>> = {
  queues: connectionFlags,
  peek: [
    ...connectionFlags,
    { name: 'limit', kind: 'number', description: 'Most messages to show (1 to 100)', defaultText: '10' },
  ],
  purge: connectionFlags,
  redrive: [
    ...connectionFlags,
    {
      name: 'destination',
      kind: 'string',
      description: 'Queue to move the messages to (default: each back to the queue it was dead-lettered from)',
    },
    {
      name: 'rate',
      kind: 'number',
      description: 'Most messages moved per second (default: as fast as the move task goes)',
    },
  ],
  send: [
    ...connectionFlags,
    { name: 'group-id', kind: 'string', description: 'MessageGroupId (FIFO queues)' },
    {
      name: 'deduplication-id',
      kind: 'string',
      description: 'MessageDeduplicationId (FIFO queues without content-based deduplication)',
    },
    { name: 'delay-seconds', kind: 'number', description: 'DelaySeconds (standard queues)' },
  ],
};

/** The positional arguments each command takes. */
const positionalNames: Readonly<Record<string, readonly string[]>> = {
  queues: [],
  peek: ['QUEUE'],
  purge: ['QUEUE'],
  redrive: ['DLQ'],
  send: ['QUEUE', 'BODY'],
};

interface QueueRow {
  name: string;
  type: string;
  visible: number;
  inFlight: number;
  delayed: number;
  oldestMessageAgeSeconds: number;
  deadLetterTarget: string | null;
}

interface PeekedRow {
  messageId: string;
  state: string;
  receiveCount: number;
  sentAt: string;
  visibleAt: string;
  body: string;
  messageGroupId?: string;
}

const queueColumns: readonly TableColumn<QueueRow>[] = [
  { header: 'NAME', value: (q) => q.name },
  { header: 'TYPE', value: (q) => q.type },
  { header: 'VISIBLE', value: (q) => String(q.visible), alignRight: true },
  { header: 'INFLIGHT', value: (q) => String(q.inFlight), alignRight: true },
  { header: 'DELAYED', value: (q) => String(q.delayed), alignRight: true },
  { header: 'OLDEST', value: (q) => formatAge(q.oldestMessageAgeSeconds), alignRight: true },
  { header: 'DEAD-LETTER', value: (q) => q.deadLetterTarget ?? '-' },
];

const bodyPreviewChars = 60;

const peekColumns: readonly TableColumn<PeekedRow>[] = [
  { header: 'MESSAGE ID', value: (m) => m.messageId },
  { header: 'STATE', value: (m) => m.state },
  { header: 'RECEIVES', value: (m) => String(m.receiveCount), alignRight: true },
  { header: 'SENT', value: (m) => m.sentAt },
  { header: 'GROUP', value: (m) => m.messageGroupId ?? '-' },
  { header: 'BODY', value: (m) => preview(m.body) },
];

export async function queueCommand(
  command: string,
  argv: readonly string[],
  env: NodeJS.ProcessEnv,
  write: (text: string) => void,
): Promise<void> {
  const specs = queueCommandFlags[command];
  const expected = positionalNames[command];
  if (specs === undefined || expected === undefined) throw new UsageError(`unknown command "${command}"`);
  const { values, positionals } = parseFlags(argv, specs, env, { allowConfigFile: false });
  if (positionals.length !== expected.length)
    throw new UsageError(
      `usage: raftq ${command}${expected.map((p) => ` ${p}`).join('')} [flags] (raftq ${command} --help)`,
    );
  const admin = stringFlag(values, 'admin') ?? '127.0.0.1:9325';
  const adminToken = stringFlag(values, 'admin-token') ?? '';
  const output = stringFlag(values, 'output') ?? 'table';
  if (output !== 'table' && output !== 'json') throw new UsageError(`--output must be table or json, got "${output}"`);
  const call = (method: 'GET' | 'POST', path: string, body?: unknown) =>
    adminCall(admin, method, path, { adminToken, ...(body === undefined ? {} : { body }) });
  const queuePath = (name: string) => `/queues/${encodeURIComponent(name)}`;
  const [first = '', second = ''] = positionals;
  let answer: unknown;
  let table: string;
  switch (command) {
    case 'queues': {
      answer = await call('GET', '/queues');
      table = formatTable(queueColumns, (answer as { queues: QueueRow[] }).queues);
      break;
    }
    case 'peek': {
      const limit = numberFlag(values, 'limit');
      answer = await call('GET', `${queuePath(first)}/messages${limit === undefined ? '' : `?limit=${limit}`}`);
      table = formatTable(peekColumns, (answer as { messages: PeekedRow[] }).messages);
      break;
    }
    case 'purge': {
      answer = await call('POST', `${queuePath(first)}/purge`);
      table = `purged ${first}\n`;
      break;
    }
    case 'redrive': {
      answer = await call('POST', `${queuePath(first)}/redrive`, redriveBody(values));
      table = `redrive of ${first} started: task ${(answer as { taskHandle: string }).taskHandle}\n`;
      break;
    }
    default: {
      answer = await call('POST', `${queuePath(first)}/messages`, sendBody(second, values));
      const sent = answer as { messageId: string; sequenceNumber?: string };
      table = `sent ${sent.messageId} to ${first}${sent.sequenceNumber === undefined ? '' : ` (sequence number ${sent.sequenceNumber})`}\n`;
    }
  }
  write(output === 'json' ? `${JSON.stringify(answer, null, 2)}\n` : table);
}

function redriveBody(values: FlagValues): Record<string, unknown> {
  const destination = stringFlag(values, 'destination');
  const rate = numberFlag(values, 'rate');
  return {
    ...(destination === undefined ? {} : { destination }),
    ...(rate === undefined ? {} : { maxMessagesPerSecond: rate }),
  };
}

function sendBody(body: string, values: FlagValues): Record<string, unknown> {
  const groupId = stringFlag(values, 'group-id');
  const deduplicationId = stringFlag(values, 'deduplication-id');
  const delaySeconds = numberFlag(values, 'delay-seconds');
  return {
    body,
    ...(groupId === undefined ? {} : { messageGroupId: groupId }),
    ...(deduplicationId === undefined ? {} : { messageDeduplicationId: deduplicationId }),
    ...(delaySeconds === undefined ? {} : { delaySeconds }),
  };
}

/** 0s, 42s, 5m12s, 3h04m, 2d05h: short enough for a column. */
export function formatAge(seconds: number): string {
  if (seconds < 60) return `${seconds}s`;
  if (seconds < 3600) return `${Math.floor(seconds / 60)}m${String(seconds % 60).padStart(2, '0')}s`;
  if (seconds < 86_400)
    return `${Math.floor(seconds / 3600)}h${String(Math.floor((seconds % 3600) / 60)).padStart(2, '0')}m`;
  return `${Math.floor(seconds / 86_400)}d${String(Math.floor((seconds % 86_400) / 3600)).padStart(2, '0')}h`;
}

function preview(body: string): string {
  const oneLine = body.replace(/[\r\n\t]+/g, ' ');
  return oneLine.length <= bodyPreviewChars ? oneLine : `${oneLine.slice(0, bodyPreviewChars - 1)}…`;
}
