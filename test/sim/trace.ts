import { createHash, type Hash } from 'node:crypto';

/**
 * The record of one simulated run: every event as a human-readable line, folded into a running
 * SHA-256 so that two runs of the same seed can be compared by one hash. Lines are kept only when
 * asked for (replaying a seed), because a corpus run needs the hash alone.
 */
export class Trace {
  private readonly hash: Hash = createHash('sha256');
  private readonly kept: string[] | null;
  private eventCount = 0;

  constructor(options: { isKeepingLines: boolean }) {
    this.kept = options.isKeepingLines ? [] : null;
  }

  /** Appends one event and returns its number (1-based), the number a violation report names. */
  append(line: string): number {
    this.eventCount += 1;
    this.hash.update(line);
    this.hash.update('\n');
    this.kept?.push(line);
    return this.eventCount;
  }

  get events(): number {
    return this.eventCount;
  }

  /** Lines as recorded, numbered; empty when lines were not kept. */
  lines(): string[] {
    return (this.kept ?? []).map((line, i) => `${String(i + 1).padStart(6)} ${line}`);
  }

  /** The hash of everything appended so far (the trace keeps accepting events afterwards). */
  digest(): string {
    return this.hash.copy().digest('hex');
  }
}
