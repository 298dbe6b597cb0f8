import { describe, expect, it } from 'vitest';
import { GenerationKeys, globalKeys, queueKeys } from '../../src/queue/layout/key-layout.js';
import type { LiveKeyChange } from '../../src/storage/txn-apply.js';
import { DeadGenerationWatch, type DeadGenerationWrite } from './dead-generation-watch.js';

const put = (key: Uint8Array): LiveKeyChange => ({ key, isLive: true });
const remove = (key: Uint8Array): LiveKeyChange => ({ key, isLive: false });
const applied = (liveKeyChanges: LiveKeyChange[]) => ({ liveKeyChanges, versionsWritten: liveKeyChanges.length });

function watched(): { watch: DeadGenerationWatch; findings: DeadGenerationWrite[] } {
  const findings: DeadGenerationWrite[] = [];
  return { watch: new DeadGenerationWatch((f) => findings.push(f)), findings };
}

describe('DeadGenerationWatch', () => {
  const gen3 = new GenerationKeys('churn', 3);
  const gen4 = new GenerationKeys('churn', 4);

  it('reports a message row put into a generation after its tombstone', () => {
    const { watch, findings } = watched();
    watch.onApplied(applied([put(gen3.data(0, 'id-1')), put(gen3.receiveState(0, 'id-1'))]));
    watch.onApplied(applied([remove(queueKeys.meta('churn')), put(globalKeys.tombstone('churn', 3))]));
    watch.onApplied(applied([put(gen3.data(0, 'id-2')), put(gen3.visibility(0, 5_000, 7n, 'id-1'))]));
    expect(findings).toEqual([
      { queue: 'churn', generation: 3, family: 'data', messageId: 'id-2' },
      { queue: 'churn', generation: 3, family: 'vis', messageId: 'id-1' },
    ]);
  });

  it('accepts rows of the next generation, of other queues, and deletes of the dead one (the reaper)', () => {
    const { watch, findings } = watched();
    watch.onApplied(applied([put(globalKeys.tombstone('churn', 3))]));
    watch.onApplied(
      applied([
        put(gen4.data(0, 'id-3')),
        put(new GenerationKeys('other', 3).data(0, 'id-4')),
        remove(gen3.data(0, 'id-1')),
        remove(globalKeys.tombstone('churn', 3)),
        put(queueKeys.meta('churn')),
      ]),
    );
    expect(findings).toEqual([]);
  });
});
