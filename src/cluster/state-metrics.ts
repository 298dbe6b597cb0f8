/**
 * Metrics of the state database and of its cleanup, registered on the node's registry (served at
 * /metrics): live rows per key family and versions from the census (computed at scrape time, no
 * scan), garbage collection and compaction progress, and what the leader's reaper deletes.
 */
import { Counter, Gauge, Histogram, type Registry } from 'prom-client';
import type { StateCensus } from './state-census.js';
import type { StateCompactor } from './state-compactor.js';
import type { StateStore } from './state-store.js';

const tickBucketsSeconds = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

export interface StateMetricsSources {
  readonly census: StateCensus;
  readonly compactor: StateCompactor;
  /** The node's current state database (it changes after a snapshot install). */
  readonly state: () => StateStore | null;
}

export class StateMetrics {
  readonly reapedRows: Counter<'family'>;
  readonly reaperTickSeconds: Histogram;
  readonly reaperSweeps: Counter<'result'>;
  readonly compactionSeconds: Histogram;

  constructor(registry: Registry, sources: StateMetricsSources) {
    const registers = [registry];
    this.reapedRows = new Counter({
      name: 'raftq_reaper_rows_total',
      help: 'Rows the reaper deleted on this node as leader, by family (tombstoned: rows of purged or deleted generations; tombstone; expired: rows of messages past retention; dedup; attempt; dangling: index rows without their message; move: finished move tasks)',
      labelNames: ['family'],
      registers,
    });
    this.reaperTickSeconds = new Histogram({
      name: 'raftq_reaper_tick_seconds',
      help: 'Duration of one reaper sweep on the leader',
      buckets: tickBucketsSeconds,
      registers,
    });
    this.reaperSweeps = new Counter({
      name: 'raftq_reaper_sweeps_total',
      help: 'Reaper sweeps on this node as leader, by result (complete, aborted when leadership moved, failed)',
      labelNames: ['result'],
      registers,
    });
    this.compactionSeconds = new Histogram({
      name: 'raftq_state_compaction_seconds',
      help: 'LevelDB range compactions of the state over emptied ranges, and their duration',
      buckets: tickBucketsSeconds,
      registers,
    });
    const { census } = sources;
    new Gauge({
      name: 'raftq_state_rows',
      help: 'Live rows (keys with a value) in the state, per key family; maintained on apply',
      labelNames: ['family'],
      registers,
      collect() {
        this.reset();
        for (const [family, rows] of census.rowsByFamily() ?? []) this.set({ family }, rows);
      },
    });
    new Gauge({
      name: 'raftq_state_versions',
      help: 'Versions in the state: live (the value of a live key) and dead (older versions and deletion markers garbage collection has not removed yet)',
      labelNames: ['kind'],
      registers,
      collect() {
        this.reset();
        const versions = census.versions();
        if (versions === undefined) return;
        this.set({ kind: 'live' }, versions.live);
        this.set({ kind: 'dead' }, versions.dead);
      },
    });
    new Gauge({
      name: 'raftq_reaper_tombstoned_rows',
      help: 'Rows still present in purged or deleted generations (tombstoned, not yet reaped)',
      registers,
      collect() {
        this.reset();
        const rows = census.tombstonedRows();
        if (rows !== undefined) this.set(rows);
      },
    });
    /**
     * A gauge, or a counter since the state was opened (it starts again from 0 after a snapshot
     * install), of the state open now; nothing before one is.
     */
    const stateMetric = (
      kind: 'gauge' | 'counter',
      name: string,
      help: string,
      read: (state: StateStore) => number,
    ): void => {
      const collect = function (this: Gauge | Counter): void {
        this.reset();
        const state = sources.state();
        if (state === null) return;
        if (this instanceof Gauge) this.set(read(state));
        else this.inc(read(state));
      };
      if (kind === 'gauge') new Gauge({ name, help, registers, collect });
      else new Counter({ name, help, registers, collect });
    };
    stateMetric(
      'gauge',
      'raftq_state_cache_bytes',
      'Memory of the newest-version cache: keys, kept values and bookkeeping (bounded by newestVersionCacheBytesMax); a follower keeps no message bodies it has not read',
      (state) => state.mvcc.newestVersionCacheSize.bytes,
    );
    stateMetric(
      'gauge',
      'raftq_state_cache_keys',
      'Keys whose newest version the newest-version cache holds (bounded by newestVersionCacheEntriesMax)',
      (state) => state.mvcc.newestVersionCacheSize.entries,
    );
    stateMetric(
      'counter',
      'raftq_state_engine_reads_total',
      "Point reads of keys the newest-version cache could not answer, read from LevelDB since the state was opened (a receive's data rows past the cached head of a backlog)",
      (state) => state.mvcc.engineReadStats.keys,
    );
    stateMetric(
      'counter',
      'raftq_state_engine_reads_untaught_total',
      "Of raftq_state_engine_reads_total, reads that could not teach the newest-version cache (a key of the same hash bucket was written or collected meanwhile): the reading transaction's validation seeks those keys again",
      (state) => state.mvcc.engineReadStats.keysUntaught,
    );
    stateMetric(
      'counter',
      'raftq_state_engine_read_iterators_total',
      'LevelDB iterators the point reads opened, one native round trip each: one per key read alone, one per pass over neighbouring keys (a receive reads the data rows of messages sent together in one pass)',
      (state) => state.mvcc.engineReadStats.iterators,
    );
    stateMetric(
      'gauge',
      'raftq_state_absent_keys',
      "Keys known to have no version because a send's new message id implies them (a queued message's receive-state row, until its first receive), so their first write skips a LevelDB seek (bounded by absentKeysMax)",
      (state) => state.mvcc.absentKeyCount,
    );
    stateMetric(
      'counter',
      'raftq_state_gc_passes_total',
      'Complete garbage-collection passes over the state since it was opened (starts again from 0 after a snapshot install)',
      (state) => state.mvcc.gcStats.passesCompleted,
    );
    stateMetric(
      'counter',
      'raftq_state_gc_read_bytes_total',
      'Bytes of rows (keys and values) garbage collection read since the state was opened: every pass reads live values too (starts again from 0 after a snapshot install)',
      (state) => state.mvcc.gcStats.bytesRead,
    );
    stateMetric(
      'gauge',
      'raftq_state_gc_ledger_entries',
      'Versions the apply step hid and markers it wrote, waiting in the garbage ledger for the watermarks to let collection remove them by key (bounded by gcLedgerBytesMax)',
      (state) => state.mvcc.garbageLedger.entries,
    );
    stateMetric(
      'gauge',
      'raftq_state_gc_ledger_complete',
      '1 when the garbage ledger holds all garbage of the state, so collection removes it by key and never reads the keyspace; 0 after a start, a snapshot install or a burst past the bound, until a pass has read the garbage made before',
      (state) => (state.mvcc.garbageLedger.isComplete ? 1 : 0),
    );
    new Gauge({
      name: 'raftq_state_compactions_pending',
      help: 'Emptied ranges waiting for a LevelDB compaction',
      registers,
      collect() {
        this.set(sources.compactor.pendingCount);
      },
    });
  }
}
