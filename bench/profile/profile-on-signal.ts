// Profiles a running node in its steady state, not its start: preload this module into the node
// (RAFTQ_BENCH_NODE_ARGS="--import ./dist/bench/profile/profile-on-signal.js"); the first SIGUSR2
// starts V8's CPU profiler, the next writes DIR/PID.cpuprofile (DIR: RAFTQ_PROFILE_DIR, or the
// working directory) for cpu-profile-summary.js. Sampling every 500 µs.
import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector';
import { join } from 'node:path';

const samplingIntervalUs = 500;
let session: Session | null = null;

process.on('SIGUSR2', () => {
  if (session === null) {
    const started = new Session();
    started.connect();
    session = started;
    started.post('Profiler.enable', () =>
      started.post('Profiler.setSamplingInterval', { interval: samplingIntervalUs }, () =>
        started.post('Profiler.start'),
      ),
    );
    return;
  }
  const running = session;
  session = null;
  running.post('Profiler.stop', (error, result) => {
    if (error === null)
      writeFileSync(
        join(process.env['RAFTQ_PROFILE_DIR'] ?? process.cwd(), `${process.pid}.cpuprofile`),
        JSON.stringify(result.profile),
      );
    running.disconnect();
  });
});
