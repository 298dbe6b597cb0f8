// A profiler of a running node switched by SIGUSR2: the first signal opens an inspector session and
// starts it, the next stops it and writes what it returns to DIR/PID.EXTENSION (DIR:
// RAFTQ_PROFILE_DIR, or the working directory). profile-on-signal and heap-profile-on-signal are
// its two uses; only one of them may be preloaded into a node.
import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector';
import { join } from 'node:path';

export interface SignalledProfiler {
  /** The file's extension, without the dot. */
  readonly extension: string;
  readonly start: (session: Session) => void;
  /** Stops the profiler and hands `write` the profile, or nothing if it failed. */
  readonly stop: (session: Session, write: (profile: object | undefined) => void) => void;
}

export function profileOnSignal(profiler: SignalledProfiler): void {
  let session: Session | null = null;
  process.on('SIGUSR2', () => {
    if (session === null) {
      const started = new Session();
      started.connect();
      session = started;
      profiler.start(started);
      return;
    }
    const running = session;
    session = null;
    profiler.stop(running, (profile) => {
      if (profile !== undefined)
        writeFileSync(
          join(process.env['RAFTQ_PROFILE_DIR'] ?? process.cwd(), `${process.pid}.${profiler.extension}`),
          JSON.stringify(profile),
        );
      running.disconnect();
    });
  });
}
