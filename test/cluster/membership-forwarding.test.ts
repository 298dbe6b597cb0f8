/**
 * A membership call sent to a follower is forwarded to the leader; the leader's refusal must reach
 * the caller as the leader meant it: a transient one (a timeout) as retryable, which the admin
 * endpoint answers 503 (a permanent one stays 409).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { isRetryable } from '../../src/base/errors.js';
import { MembershipChangeError } from '../../src/cluster/errors.js';
import { InProcessCluster } from './support/in-process-cluster.js';

describe('membership calls forwarded by a follower', () => {
  let cluster: InProcessCluster | null = null;
  afterEach(async () => {
    await cluster?.close();
    cluster = null;
  });

  it('keep the retryability of the leader’s refusal', async () => {
    cluster = await InProcessCluster.start(3);
    const leader = await cluster.leader();
    const [follower, stopped] = [...cluster.nodes.keys()].filter((id) => id !== leader.id) as [string, string];
    await cluster.stopNode(stopped);

    // The stopped voter cannot take over: the leader gives up after its transfer timeout.
    const timedOut = await cluster
      .node(follower)
      .membershipAdmin.transferLeader(stopped)
      .catch((error: unknown) => error);
    expect(timedOut).toBeInstanceOf(MembershipChangeError);
    expect((timedOut as Error).message).toContain('did not take over in time');
    expect(isRetryable(timedOut)).toBe(true);

    // Refused for good (checked on the follower itself): not worth repeating.
    const refused = await cluster
      .node(follower)
      .membershipAdmin.transferLeader('n9')
      .catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(MembershipChangeError);
    expect(isRetryable(refused)).toBe(false);
  });
});
