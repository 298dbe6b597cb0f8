import { describe, expect, it } from 'vitest';
import { handOffTarget } from '../../src/cluster/hand-off-target.js';

const voters = ['n1', 'n2', 'n3'];
const peers = (n2: [number, boolean], n3: [number, boolean]) =>
  new Map([
    ['n1', { match: 100, isRecentlyActive: true }],
    ['n2', { match: n2[0], isRecentlyActive: n2[1] }],
    ['n3', { match: n3[0], isRecentlyActive: n3[1] }],
  ]);

describe('handOffTarget', () => {
  it('picks the most caught-up voter that answered lately, never itself', () => {
    expect(handOffTarget(voters, peers([90, true], [95, true]), 'n1')).toBe('n3');
    expect(handOffTarget(voters, peers([90, true], [99, false]), 'n1')).toBe('n2');
  });

  it('still picks the most caught-up voter just after CheckQuorum cleared every mark', () => {
    expect(handOffTarget(voters, peers([90, false], [95, false]), 'n1')).toBe('n3');
  });

  it('has nobody to pick in a cluster of one, or without progress for the others', () => {
    expect(handOffTarget(['n1'], peers([90, true], [95, true]), 'n1')).toBeNull();
    expect(handOffTarget(voters, new Map([['n1', { match: 1, isRecentlyActive: true }]]), 'n1')).toBeNull();
  });
});
