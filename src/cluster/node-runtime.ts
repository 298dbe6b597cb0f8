/**
 * What a node does its I/O and keeps its time through. Production leaves every part out and gets
 * the host's (gRPC, timers, Math.random, LevelDB under the data directory); the whole-node
 * simulator (test/sim-node) hands in simulated ones, so the same ClusterNode runs in both.
 */
import type { Scheduler } from '../base/scheduler.js';
import type { NodeStorage } from './node-storage.js';
import type { NodeTransportFactory } from './node-transport.js';

/** The node's I/O and time, injected (test/sim-node wires simulated ones). */
export interface NodeRuntime {
  /** Starts the transport to peers; default GrpcTransport.start. */
  readonly transport?: NodeTransportFactory;
  /** The Ready loop's tick and the background timers; default the host's timers. */
  readonly scheduler?: Scheduler;
  /** Draws in [0, 1) for reconnect jitter and the seed of the core's election timeouts; default Math.random. */
  readonly random?: () => number;
  /** Where the Raft log and the state live; default LevelDB under config.dataDir. */
  readonly storage?: NodeStorage;
  /** Deliberate faults, for the whole-node simulator only; default none. Production never sets them. */
  readonly faults?: NodeFaults;
}

/** Deliberate faults of the runtime (test/sim-node proves its checkers with them). */
export interface NodeFaults {
  /** The core hands out entries for applying once persisted here, before they commit. */
  readonly applyBeforeCommit?: boolean;
  /** Snapshots compact the log without flushing the applied state first. */
  readonly compactPastFlush?: boolean;
}

/** A runtime with every part filled in (defaults resolved by ClusterNode.open). */
export type NodeRuntimeParts = Required<NodeRuntime>;
