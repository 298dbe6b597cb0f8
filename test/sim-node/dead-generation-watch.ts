/**
 * A replica-side check of the queue layer's one-generation rule: once a purge or DeleteQueue has
 * ended a generation of a queue (it writes the generation's tombstone with the meta change), no
 * transaction writes a row into that generation again. Every transaction that writes a
 * generation's rows read the queue's meta and gen rows, so one that read them before the purge or
 * delete conflicts and is planned again; the tombstone reaper (reaper.ts) relies on it to delete a
 * generation's rows once and then drop the tombstone. A row written after the tombstone is a
 * message lost even though its send was acknowledged (or a claim of a message that no longer
 * exists), and it outlives the reaper.
 *
 * A watch follows the keys one node incarnation's apply step gave a value (StateObserver's live key
 * changes: what committed transactions wrote, not the writes of a repeated txn id the apply step
 * answered with its first outcome), which come in log order: a tombstone it applied was committed
 * before every write it applies later, so a new row in that generation is a violation whatever the
 * clients saw. A new incarnation (restart, power loss, empty disk) gets a
 * new watch; an installed snapshot's tombstones are not seen, which can only hide a violation.
 */
import type { AppliedStateChanges, StateObserver } from '../../src/cluster/state-observer.js';
import { decodeKey } from '../../src/storage/key-codec.js';

export interface DeadGenerationWrite {
  readonly queue: string;
  readonly generation: number;
  /** The row family written ('data': a message inserted; 'state', 'vis': a claim or visibility change). */
  readonly family: string;
  /** The message the row belongs to, when its family is keyed by partition and message id. */
  readonly messageId: string | null;
}

export class DeadGenerationWatch implements StateObserver {
  /** `${queue}/${generation}` of every tombstone this incarnation applied. */
  private readonly tombstoned = new Set<string>();

  constructor(private readonly report: (finding: DeadGenerationWrite) => void) {}

  onStateOpened(): void {
    // An installed state's tombstones are not known: they can only hide a violation, never fake one.
  }

  onApplied(changes: AppliedStateChanges): void {
    for (const change of changes.liveKeyChanges) {
      if (!change.isLive) continue;
      const tuple = decodeKey(change.key);
      // ("tomb", name, gen): the generation's end. ("q", name, "g", gen, family, …): one of its rows.
      if (tuple[0] === 'tomb' && tuple.length === 3) {
        this.tombstoned.add(`${String(tuple[1])}/${String(tuple[2])}`);
        continue;
      }
      if (tuple[0] !== 'q' || tuple[2] !== 'g' || tuple.length < 5) continue;
      const queue = String(tuple[1]);
      const generation = Number(tuple[3]);
      if (!this.tombstoned.has(`${queue}/${generation}`)) continue;
      const family = String(tuple[4]);
      // data and state rows end in (partition, id); a vis row in (partition, visibleAtMs, order, id).
      const idAt = family === 'data' || family === 'state' ? 6 : family === 'vis' ? 8 : -1;
      const id = idAt < 0 ? undefined : tuple[idAt];
      const messageId = typeof id === 'string' ? id : null;
      this.report({ queue, generation, family, messageId });
    }
  }
}
