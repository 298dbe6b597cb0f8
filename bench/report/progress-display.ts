// One status line that rewrites itself on a terminal (system, cell, phase, messages so far, rate);
// finished steps are printed above it as ordinary lines. Without a terminal only those lines are
// printed, so a log stays readable.

export interface ProgressState {
  readonly systemIndex: number;
  readonly systemCount: number;
  readonly system: string;
  readonly cellIndex: number;
  readonly cellCount: number;
  readonly phase: string;
  readonly produced: number;
  readonly consumed: number;
  readonly errors: number;
  readonly elapsedMs: number;
}

export function formatProgress(state: ProgressState): string {
  const seconds = state.elapsedMs / 1000;
  const rate = (n: number): string => (seconds > 0 ? `${Math.round(n / seconds)}/s` : '-');
  return (
    `[${state.systemIndex}/${state.systemCount} ${state.system}] cell ${state.cellIndex}/${state.cellCount} ${state.phase}: ` +
    `sent ${state.produced} (${rate(state.produced)}) received ${state.consumed} (${rate(state.consumed)})` +
    `${state.errors > 0 ? ` errors ${state.errors}` : ''} ${seconds.toFixed(1)}s`
  );
}

export class ProgressDisplay {
  private hasStatusLine = false;
  private readonly isTerminal: boolean;
  private readonly startedMs = Date.now();

  constructor(private readonly stream: NodeJS.WriteStream = process.stderr) {
    this.isTerminal = stream.isTTY === true;
  }

  status(state: ProgressState): void {
    if (!this.isTerminal) return;
    const columns = this.stream.columns ?? 120;
    this.stream.write(`\r\x1b[2K${formatProgress(state).slice(0, columns - 1)}`);
    this.hasStatusLine = true;
  }

  log(line: string): void {
    if (this.hasStatusLine) this.stream.write('\r\x1b[2K');
    this.hasStatusLine = false;
    const elapsed = `${((Date.now() - this.startedMs) / 1000).toFixed(0)}s`.padStart(5);
    this.stream.write(`[${elapsed}] ${line}\n`);
  }
}
