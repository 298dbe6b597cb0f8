/**
 * Waits `durationMs` on the host's timers. For the runtime layers (cluster, forwarding) only: the
 * deterministic layers never wait on a timer, the runtime drives their time.
 */
export function delay(durationMs: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, durationMs));
}
