/**
 * What a node opens at start-up, and how it recovers them: the Raft log under DATA/raft (with the
 * bootstrap membership the first time), a snapshot install a crash interrupted (finished now), the
 * state under DATA/state, and the Raft core, told what the state has already applied.
 */
import { randomInt } from 'node:crypto';
import type { Logger } from 'pino';
import { assert } from '../base/assert.js';
import { raftLimits } from '../base/limits.js';
import { SeededPrng } from '../base/prng.js';
import { RawNode, type RaftFaults } from '../raft/raw-node.js';
import type { LevelLogStore, Membership } from './level-log-store.js';
import type { NodeConfig } from './node-config.js';
import { dataDirStorage, type NodeStorage } from './node-storage.js';
import type { StateStore } from './state-store.js';

export interface NodeStores {
  readonly logStore: LevelLogStore;
  readonly state: StateStore;
  readonly raw: RawNode;
}

export interface NodeStoresOptions {
  /** Where the log and state live; default: LevelDB under config.dataDir. */
  readonly storage?: NodeStorage;
  /** Seeds the core's randomized election timeouts; default: a random seed. */
  readonly prngSeed?: number;
  /** Test-only deliberate faults of the core (the whole-node simulator's). */
  readonly raftFaults?: RaftFaults;
}

/** Opens the log and state (finishing an interrupted snapshot install) and builds the core over them. */
export async function openNodeStores(
  config: NodeConfig,
  logger: Logger,
  options: NodeStoresOptions = {},
): Promise<NodeStores> {
  const storage = options.storage ?? dataDirStorage(config.dataDir);
  storage.prepare();
  const bootstrap: Membership = {
    confState: config.join ? { voters: [], learners: [] } : { voters: Object.keys(config.peers).sort(), learners: [] },
    index: 0,
    addresses: config.peers,
  };
  const logStore = await storage.openLogStore(bootstrap);
  const recovered = await storage.stateDir.recover(logStore);
  if (recovered !== null)
    logger.info({ snapshotIndex: recovered.meta.index }, 'finished a snapshot install interrupted by a crash');
  const state = await storage.stateDir.openLive();
  const hardState = logStore.initialState().hardState;
  const compactedIndex = logStore.firstIndex() - 1;
  assert(
    state.appliedIndex >= compactedIndex,
    () =>
      `state applied index ${state.appliedIndex} is behind the compacted log (${compactedIndex}): ${storage.stateDir.liveName} was lost or replaced`,
  );
  const applied = Math.max(compactedIndex, Math.min(state.appliedIndex, hardState.commit, logStore.lastIndex()));
  const raw = new RawNode({
    id: config.id,
    storage: logStore,
    prng: new SeededPrng(options.prngSeed ?? randomInt(2 ** 31)),
    electionTimeoutTicks: config.electionTimeoutTicks,
    heartbeatTicks: config.heartbeatTicks,
    applied,
    inflightMessagesMax: raftLimits.inflightMessagesMax.value,
    appendBytesMax: raftLimits.appendBytesMax.value,
    uncommittedBytesMax: raftLimits.uncommittedBytesMax.value,
    preVote: true,
    checkQuorum: true,
    ...(options.raftFaults === undefined ? {} : { faults: options.raftFaults }),
  });
  return { logStore, state, raw };
}
