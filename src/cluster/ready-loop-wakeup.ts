/**
 * How the Ready loop (node-wiring.ts) is woken and handed work: a kick wakes it (or, when it is
 * busy, makes its next wait return at once), and tasks queued with runInLoop run in it between
 * two Readys. It stands apart because it is the loop's only synchronisation with the rest of the
 * node: whatever changes the log or the state goes through runInLoop, so no two of them interleave.
 */

type LoopTask = () => Promise<void> | void;

export class ReadyLoopWakeup {
  private readonly tasks: LoopTask[] = [];
  private wake: (() => void) | null = null;
  private isKicked = false;

  kick(): void {
    const wake = this.wake;
    if (wake !== null) {
      this.wake = null;
      wake();
    } else {
      this.isKicked = true;
    }
  }

  /** Queues `task` for the loop and wakes it; resolves with the task's result. */
  runInLoop<T>(task: () => Promise<T> | T): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.tasks.push(async () => {
        try {
          resolve(await task());
        } catch (error) {
          reject(error);
        }
      });
      this.kick();
    });
  }

  /** Resolves at the next kick, or at once if one came since the last wait. */
  async waitForKick(): Promise<void> {
    if (!this.isKicked) await new Promise<void>((resolve) => (this.wake = resolve));
    this.isKicked = false;
  }

  /** The tasks queued so far, in order; the queue is left empty. */
  takeTasks(): LoopTask[] {
    return this.tasks.splice(0);
  }
}
