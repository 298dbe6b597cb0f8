#!/usr/bin/env node
/**
 * The raftq command:
 *   raftq serve [flags]                          run a node (see `raftq serve --help`)
 *   raftq cluster up [--nodes 3] [--base-dir DIR] | raftq cluster down [--base-dir DIR]
 *   raftq status [--admin HOST:PORT]             print a node's /status
 *   raftq status --cluster [--output table|json] every member as the leader sees it (cluster-status-command.ts)
 *   raftq members add ID=HOST:PORT [--admin …]   add a node (learner first, voter once caught up)
 *   raftq members remove ID [--admin …]
 *   raftq leader transfer ID [--admin …]
 *   raftq backup --out FILE [--admin …]          a consistent backup of a running cluster
 *   raftq restore FILE --data-dir DIR            a one-node cluster from a backup
 *   raftq recover --data-dir DIR --id ID         a stopped survivor of a lost quorum becomes a one-node cluster
 *   raftq certs --nodes ID=HOST,…;… [--out DIR]  a CA and node certificates for mutual TLS
 *   raftq queues | peek | purge | redrive | send   the queues (queue-commands.ts)
 *   raftq --version
 */
import { adminCall } from './admin-client.js';
import { clusterCommand, clusterFlags } from './cluster-command.js';
import { booleanFlag, helpText, parseFlags, stringFlag, UsageError, type FlagSpec } from './flags.js';
import { requireSupportedNodeVersion } from './node-version.js';
import { serveFlags } from './serve-options.js';

const adminFlags: readonly FlagSpec[] = [
  { name: 'admin', kind: 'string', description: 'Admin address of the node to ask', defaultText: '127.0.0.1:9325' },
  { name: 'cluster-secret', kind: 'string', description: 'The cluster secret, for calls that change the cluster' },
  { name: 'admin-token', kind: 'string', description: "The node's --admin-token, when its admin port has one" },
];

const statusFlags: readonly FlagSpec[] = [
  ...adminFlags,
  {
    name: 'cluster',
    kind: 'boolean',
    description: "Every member in one table, with the leader's match index and last contact",
  },
  {
    name: 'output',
    kind: 'string',
    description: "With --cluster: table (readable) or json (GET /cluster's answer)",
    defaultText: 'table',
  },
];

const usage = `Usage:
  raftq serve [flags]                            run a node (raftq serve --help)
  raftq cluster up [--nodes 3] [--base-dir DIR]  start a local cluster in the background
  raftq cluster down [--base-dir DIR]            stop it
  raftq status [--admin HOST:PORT]               print a node's status
  raftq status --cluster [--output table|json]   every member: role, term, indexes, lag, last contact
  raftq members add ID=HOST:PORT [--admin HOST:PORT]
  raftq members remove ID [--admin HOST:PORT]
  raftq leader transfer ID [--admin HOST:PORT]
  raftq backup --out FILE [--admin HOST:PORT]    back up a running cluster through any node
  raftq restore FILE --data-dir DIR [--id n1]    make a one-node cluster from a backup
  raftq recover --data-dir DIR --id ID           after losing a quorum for good: make a stopped
                                                 survivor a one-node cluster with the data it has
  raftq certs --nodes n1=HOST;n2=HOST [--out DIR]  make a CA and node certificates
  raftq queues [--output table|json]             list the queues with their counts
  raftq peek QUEUE [--limit N]                   show messages without receiving them
  raftq purge QUEUE                              delete every message of a queue
  raftq redrive DLQ                              move a dead-letter queue's messages back
  raftq send QUEUE BODY                          send a test message
  raftq --version                                print the version`;

async function adminCommand(words: readonly string[], argv: readonly string[], env: NodeJS.ProcessEnv): Promise<void> {
  const { values, positionals } = parseFlags(argv, words[0] === 'status' ? statusFlags : adminFlags, env, {
    allowConfigFile: false,
  });
  const admin = stringFlag(values, 'admin') ?? '127.0.0.1:9325';
  const clusterSecret = stringFlag(values, 'cluster-secret') ?? '';
  const adminToken = stringFlag(values, 'admin-token') ?? '';
  const print = (value: unknown): void => {
    process.stdout.write(typeof value === 'string' ? value : `${JSON.stringify(value, null, 2)}\n`);
  };
  const command = words.join(' ');
  if (command === 'status') {
    const output = stringFlag(values, 'output') ?? 'table';
    if (output !== 'table' && output !== 'json')
      throw new UsageError(`--output must be table or json, got "${output}"`);
    if (booleanFlag(values, 'cluster'))
      return (await import('./cluster-status-command.js')).clusterStatus(admin, adminToken, output, print);
    print(await adminCall(admin, 'GET', '/status', { adminToken }));
    return;
  }
  const target = positionals[0];
  if (target === undefined || positionals.length > 1) throw new UsageError(usage);
  if (command === 'members add') {
    const eq = target.indexOf('=');
    if (eq <= 0) throw new UsageError("members add needs ID=HOST:PORT (the new node's Raft address)");
    print(
      await adminCall(admin, 'POST', '/members', {
        body: { id: target.slice(0, eq), address: target.slice(eq + 1) },
        clusterSecret,
        adminToken,
        timeoutMs: 90_000,
      }),
    );
  } else if (command === 'members remove') {
    print(
      await adminCall(admin, 'DELETE', `/members/${encodeURIComponent(target)}`, {
        clusterSecret,
        adminToken,
        timeoutMs: 90_000,
      }),
    );
  } else if (command === 'leader transfer') {
    print(await adminCall(admin, 'POST', '/leader/transfer', { body: { id: target }, clusterSecret, adminToken }));
  } else {
    throw new UsageError(usage);
  }
}

async function main(argv: readonly string[], env: NodeJS.ProcessEnv): Promise<void> {
  requireSupportedNodeVersion();
  const [command, ...rest] = argv;
  const wantsHelp = rest.includes('--help') || rest.includes('-h');
  switch (command) {
    case 'serve':
      if (wantsHelp)
        return void process.stdout.write(
          `${helpText('serve', serveFlags)}\n  --config FILE                     JSON file with any of the flags above [RAFTQ_CONFIG]\n`,
        );
      // Loaded only here: the other commands are small admin clients and start fast without it.
      return (await import('./serve-command.js')).serveCommand(rest, env);
    case 'cluster':
      if (wantsHelp) return void process.stdout.write(`${helpText('cluster up|down', clusterFlags)}\n`);
      return clusterCommand(rest, env);
    case 'status':
      if (wantsHelp) return void process.stdout.write(`${helpText('status', statusFlags)}\n`);
      return adminCommand(['status'], rest, env);
    case 'members':
    case 'leader':
      if (wantsHelp) return void process.stdout.write(`${usage}\n\n${helpText(`${command} …`, adminFlags)}\n`);
      return adminCommand([command, rest[0] ?? ''], rest.slice(1), env);
    case 'backup': {
      const { backupCommand, backupFlags } = await import('./backup-command.js');
      if (wantsHelp) return void process.stdout.write(`${helpText('backup', backupFlags)}\n`);
      return backupCommand(rest, env);
    }
    case 'restore': {
      const { restoreCommand, restoreFlags } = await import('./restore-command.js');
      if (wantsHelp) return void process.stdout.write(`${helpText('restore FILE', restoreFlags)}\n`);
      return restoreCommand(rest, env);
    }
    case 'recover': {
      const { recoverCommand, recoverFlags, recoverHelp } = await import('./recover-command.js');
      if (wantsHelp) return void process.stdout.write(`${helpText('recover', recoverFlags)}\n${recoverHelp}\n`);
      return recoverCommand(rest, env);
    }
    case 'certs': {
      const { certsCommand, certsFlags } = await import('./certs-command.js');
      if (wantsHelp) return void process.stdout.write(`${helpText('certs', certsFlags)}\n`);
      return certsCommand(rest, env);
    }
    case 'queues':
    case 'peek':
    case 'purge':
    case 'redrive':
    case 'send': {
      const { queueCommand, queueCommandFlags } = await import('./queue-commands.js');
      if (wantsHelp) return void process.stdout.write(`${helpText(command, queueCommandFlags[command] ?? [])}\n`);
      return queueCommand(command, rest, env, (text) => process.stdout.write(text));
    }
    case '--version':
    case 'version':
      process.stdout.write(`raftq ${(await import('./version.js')).raftqVersion()}\n`);
      return;
    case undefined:
    case 'help':
    case '--help':
    case '-h':
      process.stdout.write(`${usage}\n`);
      return;
    default:
      throw new UsageError(`unknown command "${command}"\n${usage}`);
  }
}

main(process.argv.slice(2), process.env).catch((error: unknown) => {
  if (error instanceof UsageError) {
    process.stderr.write(`raftq: ${error.message}\n`);
    process.exit(2);
  }
  process.stderr.write(`raftq: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
