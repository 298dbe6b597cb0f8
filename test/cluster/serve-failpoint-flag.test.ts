import { describe, expect, it } from 'vitest';
import { UsageError } from '../../src/cli/flags.js';
import { resolveServeOptions } from '../../src/cli/serve-options.js';

describe('raftq serve --test-failpoint', () => {
  it('is off unless named', () => {
    expect(resolveServeOptions([], {}).failpoint).toBeNull();
  });

  it('takes a known failpoint on a node whose listeners are all on loopback', () => {
    const options = resolveServeOptions(
      [
        '--test-failpoint',
        'drop-acked-send',
        '--sqs-listen',
        '127.0.0.1:9000',
        '--admin-listen',
        'localhost:9001',
        '--raft-listen',
        '127.0.0.1:9002',
      ],
      {},
    );
    expect(options.failpoint).toBe('drop-acked-send');
  });

  it('refuses an unknown failpoint', () => {
    expect(() => resolveServeOptions(['--test-failpoint', 'lose-everything'], {})).toThrow(UsageError);
  });

  it('refuses a failpoint with any listener off loopback, whichever it is', () => {
    const withToken = ['--admin-token', 't'];
    for (const flag of ['--sqs-listen', '--admin-listen', '--raft-listen']) {
      expect(
        () => resolveServeOptions(['--test-failpoint', 'stale-read', flag, '0.0.0.0:9000', ...withToken], {}),
        flag,
      ).toThrow(/not a loopback address/);
    }
    // The same flags without the failpoint are a normal production start.
    expect(resolveServeOptions(['--sqs-listen', '0.0.0.0:9000', ...withToken], {}).failpoint).toBeNull();
  });
});
