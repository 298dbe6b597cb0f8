// What a running node allocates, in its steady state: preload this module into the node
// (RAFTQ_BENCH_NODE_ARGS="--import ./dist/bench/profile/heap-profile-on-signal.js"); the first
// SIGUSR2 starts V8's sampling heap profiler, the next writes DIR/PID.heapprofile (DIR:
// RAFTQ_PROFILE_DIR, or the working directory) for heap-profile-summary.js. Every allocation is
// sampled, also those the collector has freed since, once per RAFTQ_HEAP_SAMPLE_BYTES (4096) on
// average: what the young generation's collections cost follows what is allocated, not what stays.
// Not to be preloaded together with profile-on-signal.js (both answer SIGUSR2).
import { profileOnSignal } from './inspector-on-signal.js';

const samplingIntervalBytes = Number(process.env['RAFTQ_HEAP_SAMPLE_BYTES'] ?? 4096);

profileOnSignal({
  extension: 'heapprofile',
  start: (session) =>
    session.post('HeapProfiler.enable', () =>
      session.post('HeapProfiler.startSampling', {
        samplingInterval: samplingIntervalBytes,
        includeObjectsCollectedByMajorGC: true,
        includeObjectsCollectedByMinorGC: true,
      }),
    ),
  stop: (session, write) =>
    session.post('HeapProfiler.stopSampling', (error, result) => write(error === null ? result.profile : undefined)),
});
