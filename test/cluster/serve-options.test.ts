import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { UsageError } from '../../src/cli/flags.js';
import { resolveServeOptions } from '../../src/cli/serve-options.js';
import { InvalidNodeConfigError } from '../../src/cluster/errors.js';
import { makeTempDir } from '../support/temp-dir.js';

describe('raftq serve flags', () => {
  it('with no flags describes a one-node cluster with data in ./data on 9324/9325/9326', () => {
    const options = resolveServeOptions([], {});
    expect(options.sqsListen).toBe('127.0.0.1:9324');
    expect(options.adminListen).toBe('127.0.0.1:9325');
    expect(options.node.raftListen).toBe('127.0.0.1:9326');
    expect(options.node.id).toBe('n1');
    expect(options.node.peers).toEqual({ n1: '127.0.0.1:9326' });
    expect(options.node.dataDir).toBe(join(process.cwd(), 'data'));
    expect(options.isDebugEnabled).toBe(false);
  });

  it('takes the documented flags', () => {
    const options = resolveServeOptions(
      [
        '--id',
        'n2',
        '--data-dir',
        '/tmp/x',
        '--sqs-listen',
        '127.0.0.1:9334',
        '--admin-listen=127.0.0.1:9335',
        '--raft-listen',
        '127.0.0.1:9336',
        '--peers',
        'n1=127.0.0.1:9326,n2=127.0.0.1:9336,n3=127.0.0.1:9346',
        '--debug-endpoints',
      ],
      {},
    );
    expect(options.node).toMatchObject({ id: 'n2', dataDir: '/tmp/x', raftListen: '127.0.0.1:9336' });
    expect(Object.keys(options.node.peers)).toEqual(['n1', 'n2', 'n3']);
    expect(options.sqsListen).toBe('127.0.0.1:9334');
    expect(options.adminListen).toBe('127.0.0.1:9335');
    expect(options.isDebugEnabled).toBe(true);
  });

  it('reads every flag from RAFTQ_<FLAG> and from --config, the command line winning over both', () => {
    const dir = makeTempDir('config');
    try {
      const file = join(dir.path, 'node.json');
      writeFileSync(
        file,
        JSON.stringify({
          id: 'from-file',
          sqsListen: '127.0.0.1:1111',
          'admin-listen': '127.0.0.1:2222',
          peers: { 'from-file': '127.0.0.1:3333' },
          raftListen: '127.0.0.1:3333',
        }),
      );
      const options = resolveServeOptions(['--config', file, '--admin-listen', '127.0.0.1:4444'], {
        RAFTQ_SQS_LISTEN: '127.0.0.1:5555',
        RAFTQ_CLUSTER_SECRET: 's',
      });
      expect(options.node.id).toBe('from-file');
      expect(options.sqsListen).toBe('127.0.0.1:5555');
      expect(options.adminListen).toBe('127.0.0.1:4444');
      expect(options.node.clusterSecret).toBe('s');
      expect(options.node.peers).toEqual({ 'from-file': '127.0.0.1:3333' });
    } finally {
      dir.cleanup();
    }
  });

  it('refuses unknown flags, bad addresses and a peer list without this node', () => {
    expect(() => resolveServeOptions(['--bogus', '1'], {})).toThrow(UsageError);
    expect(() => resolveServeOptions(['--sqs-listen', 'nowhere'], {})).toThrow(InvalidNodeConfigError);
    expect(() => resolveServeOptions(['--id', 'n9', '--peers', 'n1=127.0.0.1:1'], {})).toThrow(InvalidNodeConfigError);
    expect(() => resolveServeOptions(['--tls-cert', 'a.pem'], {})).toThrow(UsageError);
  });

  it('lets a joining node start without itself in the peer list', () => {
    const options = resolveServeOptions(['--id', 'n4', '--join', '--peers', 'n1=127.0.0.1:1'], {});
    expect(options.node.join).toBe(true);
  });
});
