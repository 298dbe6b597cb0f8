import { describe, expect, it } from 'vitest';
import { parseBenchOptions } from '../../bench/bench-options.js';
import { onlyNodeOf } from '../../bench/load/load-target.js';

describe('--only-node', () => {
  it('narrows every kind of target to the one node named, and refuses a node the system lacks', () => {
    const sqs = { kind: 'sqs', endpoints: ['http://a', 'http://b', 'http://c'], isNoop: false } as const;
    expect(onlyNodeOf(sqs, 2)).toEqual({ ...sqs, endpoints: ['http://b'] });
    expect(onlyNodeOf({ kind: 'amqp', urls: ['u1', 'u2'] }, 1)).toEqual({ kind: 'amqp', urls: ['u1'] });
    expect(onlyNodeOf({ kind: 'nats', servers: ['s1', 's2', 's3'] }, 3)).toEqual({ kind: 'nats', servers: ['s3'] });
    expect(onlyNodeOf({ kind: 'etcd', endpoints: ['e1'] }, 1)).toEqual({ kind: 'etcd', endpoints: ['e1'] });
    expect(() => onlyNodeOf({ kind: 'etcd', endpoints: ['e1'] }, 2)).toThrow(/has 1 node/);
  });

  it('is parsed as a positive node number; absent, clients spread over every node', () => {
    expect(parseBenchOptions(['--only-node', '2'], '/r').onlyNode).toBe(2);
    expect(parseBenchOptions([], '/r').onlyNode).toBeNull();
    expect(() => parseBenchOptions(['--only-node', '0'], '/r')).toThrow(/positive integers/);
  });
});
