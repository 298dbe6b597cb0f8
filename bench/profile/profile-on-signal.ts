// Profiles a running node in its steady state, not its start: preload this module into the node
// (RAFTQ_BENCH_NODE_ARGS="--import ./dist/bench/profile/profile-on-signal.js"); the first SIGUSR2
// starts V8's CPU profiler, the next writes DIR/PID.cpuprofile (DIR: RAFTQ_PROFILE_DIR, or the
// working directory) for cpu-profile-summary.js. Sampling every 500 µs.
import { profileOnSignal } from './inspector-on-signal.js';

const samplingIntervalUs = 500;

profileOnSignal({
  extension: 'cpuprofile',
  start: (session) =>
    session.post('Profiler.enable', () =>
      session.post('Profiler.setSamplingInterval', { interval: samplingIntervalUs }, () =>
        session.post('Profiler.start'),
      ),
    ),
  stop: (session, write) =>
    session.post('Profiler.stop', (error, result) => write(error === null ? result.profile : undefined)),
});
