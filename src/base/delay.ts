import { SystemScheduler, type Scheduler } from './scheduler.js';

const hostScheduler = new SystemScheduler();

/**
 * Waits `durationMs` on `scheduler` (default the host's timers). For the runtime layers (cluster,
 * forwarding) only: the deterministic layers never wait on a timer, the runtime drives their time.
 * The runtime passes its injected scheduler, so that a simulated node waits on virtual time.
 */
export function delay(durationMs: number, scheduler: Scheduler = hostScheduler): Promise<void> {
  return new Promise((resolve) => scheduler.after(durationMs, resolve));
}
