/**
 * `raftq certs --out DIR --nodes ID=HOST[,HOST…];ID=…`: a CA and one certificate per node for
 * mutual TLS between nodes (`--tls-cert DIR/ID.pem --tls-key DIR/ID-key.pem --tls-ca DIR/ca.pem`).
 * Runs the system's openssl. An existing DIR/ca.pem with DIR/ca-key.pem is reused, so a node added
 * later gets a certificate the running nodes already trust; a node certificate that exists is
 * left alone.
 *
 * Every node certificate is valid for both ends of a connection (serverAuth and clientAuth: each
 * node dials and is dialled) and names, as subject alternative names, the node id and every host
 * given for it — the addresses other nodes dial (IP: entries for IP addresses).
 */
import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { isIP } from 'node:net';
import { join, resolve } from 'node:path';
import { numberFlag, parseFlags, stringFlag, UsageError, type FlagSpec } from './flags.js';

export const certsFlags: readonly FlagSpec[] = [
  {
    name: 'out',
    kind: 'string',
    description: 'Directory for ca.pem, ca-key.pem, ID.pem, ID-key.pem',
    defaultText: './certs',
  },
  {
    name: 'nodes',
    kind: 'string',
    description: 'Nodes and the hosts others reach them by: n1=10.0.0.1,raftq-1;n2=… (required)',
  },
  { name: 'days', kind: 'number', description: 'Validity of new certificates in days', defaultText: '825' },
  { name: 'ca-name', kind: 'string', description: 'Common name of a new CA', defaultText: 'raftq cluster CA' },
];

export class OpensslFailedError extends Error {
  constructor(
    readonly args: readonly string[],
    options: { cause: unknown },
  ) {
    super(
      `openssl ${args.join(' ')} failed: ${options.cause instanceof Error ? options.cause.message : String(options.cause)}`,
      options,
    );
    this.name = 'OpensslFailedError';
  }
}

const nodeIdPattern = /^[A-Za-z0-9_.-]{1,64}$/;
const hostPattern = /^[A-Za-z0-9.:*-]{1,253}$/;

/** Parses "n1=10.0.0.1,raftq-1;n2=10.0.0.2" into id → hosts. */
export function parseCertNodes(text: string): Map<string, string[]> {
  const nodes = new Map<string, string[]>();
  for (const item of text
    .split(';')
    .map((s) => s.trim())
    .filter((s) => s !== '')) {
    const eq = item.indexOf('=');
    const id = eq === -1 ? item : item.slice(0, eq);
    const hosts =
      eq === -1
        ? []
        : item
            .slice(eq + 1)
            .split(',')
            .map((h) => h.trim())
            .filter((h) => h !== '');
    if (!nodeIdPattern.test(id)) throw new UsageError(`--nodes: node id "${id}" must be 1-64 of [A-Za-z0-9_.-]`);
    for (const host of hosts)
      if (!hostPattern.test(host)) throw new UsageError(`--nodes: "${host}" is not a host name or IP address`);
    if (nodes.has(id)) throw new UsageError(`--nodes: ${id} is listed twice`);
    nodes.set(id, hosts);
  }
  if (nodes.size === 0) throw new UsageError('--nodes needs at least one node: n1=HOST[,HOST…];n2=…');
  return nodes;
}

function openssl(args: readonly string[]): void {
  try {
    execFileSync('openssl', args, { stdio: ['ignore', 'ignore', 'pipe'] });
  } catch (error) {
    throw new OpensslFailedError(args, { cause: error });
  }
}

export function subjectAltNames(id: string, hosts: readonly string[]): string {
  const names = [...new Set([id, ...hosts])];
  return names.map((name) => (isIP(name) !== 0 ? `IP:${name}` : `DNS:${name}`)).join(',');
}

/** Makes what is missing in `dir`; returns the files it wrote. */
export function makeClusterCerts(options: {
  dir: string;
  nodes: ReadonlyMap<string, readonly string[]>;
  days: number;
  caName: string;
}): string[] {
  const { dir, days } = options;
  mkdirSync(dir, { recursive: true });
  const written: string[] = [];
  const caCert = join(dir, 'ca.pem');
  const caKey = join(dir, 'ca-key.pem');
  if (!existsSync(caCert) || !existsSync(caKey)) {
    openssl([
      'req',
      '-x509',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:P-256',
      '-nodes',
      '-keyout',
      caKey,
      '-out',
      caCert,
      '-days',
      String(days),
      '-subj',
      `/CN=${options.caName}`,
      '-addext',
      'basicConstraints=critical,CA:TRUE',
      '-addext',
      'keyUsage=critical,keyCertSign,cRLSign',
    ]);
    chmodSync(caKey, 0o600);
    written.push(caCert, caKey);
  }
  for (const [id, hosts] of options.nodes) {
    const cert = join(dir, `${id}.pem`);
    const key = join(dir, `${id}-key.pem`);
    if (existsSync(cert) && existsSync(key)) continue;
    const csr = join(dir, `${id}.csr`);
    const ext = join(dir, `${id}.ext`);
    writeFileSync(
      ext,
      `subjectAltName=${subjectAltNames(id, hosts)}\nextendedKeyUsage=serverAuth,clientAuth\nkeyUsage=critical,digitalSignature\nbasicConstraints=critical,CA:FALSE\n`,
    );
    try {
      openssl([
        'req',
        '-newkey',
        'ec',
        '-pkeyopt',
        'ec_paramgen_curve:P-256',
        '-nodes',
        '-keyout',
        key,
        '-out',
        csr,
        '-subj',
        `/CN=${id}`,
      ]);
      chmodSync(key, 0o600);
      openssl([
        'x509',
        '-req',
        '-in',
        csr,
        '-CA',
        caCert,
        '-CAkey',
        caKey,
        '-CAcreateserial',
        '-out',
        cert,
        '-days',
        String(days),
        '-extfile',
        ext,
      ]);
    } finally {
      rmSync(csr, { force: true });
      rmSync(ext, { force: true });
    }
    written.push(cert, key);
  }
  return written;
}

export function certsCommand(argv: readonly string[], env: NodeJS.ProcessEnv): void {
  const { values, positionals } = parseFlags(argv, certsFlags, env, { allowConfigFile: false });
  if (positionals.length > 0) throw new UsageError(`unexpected argument "${positionals[0]}"`);
  const nodesText = stringFlag(values, 'nodes');
  if (nodesText === undefined) throw new UsageError('certs needs --nodes n1=HOST[,HOST…];n2=…');
  const days = numberFlag(values, 'days') ?? 825;
  if (!Number.isInteger(days) || days < 1) throw new UsageError('--days must be a positive integer');
  const dir = resolve(stringFlag(values, 'out') ?? './certs');
  const written = makeClusterCerts({
    dir,
    nodes: parseCertNodes(nodesText),
    days,
    caName: stringFlag(values, 'ca-name') ?? 'raftq cluster CA',
  });
  for (const file of written) process.stdout.write(`wrote ${file}\n`);
  if (written.length === 0) process.stdout.write(`nothing to do: every certificate exists in ${dir}\n`);
  process.stdout.write(
    `keep ${join(dir, 'ca-key.pem')} off the nodes; each node needs ca.pem, its ID.pem and ID-key.pem\n`,
  );
}
