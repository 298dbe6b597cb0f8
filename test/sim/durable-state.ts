import { MemoryRaftStorage } from '../../src/raft/memory-storage.js';
import type { ConfState } from '../../src/raft/types.js';
import type { SimStateMachine } from './sim-state-machine.js';

/**
 * What survives a crash of one simulated node: its Raft storage (log, hard state, snapshot),
 * written only by the runtime when it persists a Ready or takes a snapshot; and, when the run
 * keeps applied state durable, the state machine, written with each apply. Everything else — the
 * core with its unstable log, progress and votes received, a Ready being handled — is memory,
 * and a crash loses it.
 */
export class DurableState {
  readonly storage: MemoryRaftStorage;
  /** Null when the state machine is volatile and a restart rebuilds it from the snapshot. */
  stateMachine: SimStateMachine | null = null;

  constructor(confState: ConfState) {
    this.storage = new MemoryRaftStorage({ confState });
  }

  get snapshotIndex(): number {
    return this.storage.snapshot().meta.index;
  }
}
