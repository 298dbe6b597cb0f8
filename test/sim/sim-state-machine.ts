import type { Entry } from '../../src/raft/types.js';
import { EntryType } from '../../src/raft/types.js';
import { chainAppliedDigest, initialAppliedDigest } from './applied-digest.js';

const utf8Encoder = new TextEncoder();
const utf8Decoder = new TextDecoder();

interface EncodedState {
  readonly appliedIndex: number;
  readonly digest: string;
  readonly values: readonly (readonly [number, string])[];
}

/**
 * The application the simulated cluster replicates: it remembers which client value (a proposal
 * id) was applied at which index, and a digest of its whole applied history. Deterministic, as
 * every state machine fed by Raft must be.
 */
export class SimStateMachine {
  private constructor(
    private applied: number,
    private currentDigest: string,
    private readonly values: Map<number, string>,
  ) {}

  static empty(): SimStateMachine {
    return new SimStateMachine(0, initialAppliedDigest, new Map());
  }

  /** The state a snapshot carries; an empty payload is the bootstrap snapshot at index 0. */
  static fromSnapshotData(data: Uint8Array): SimStateMachine {
    if (data.length === 0) return SimStateMachine.empty();
    const decoded = JSON.parse(utf8Decoder.decode(data)) as EncodedState;
    return new SimStateMachine(decoded.appliedIndex, decoded.digest, new Map(decoded.values));
  }

  get appliedIndex(): number {
    return this.applied;
  }

  get digest(): string {
    return this.currentDigest;
  }

  /** The client value applied at `index`, if that entry carried one. */
  valueAt(index: number): string | undefined {
    return this.values.get(index);
  }

  /** Applies `entry`. Order is not checked here: the state machine safety checker reports gaps and repeats. */
  apply(entry: Entry): void {
    this.applied = entry.index;
    this.currentDigest = chainAppliedDigest(this.currentDigest, entry);
    if (entry.type === EntryType.Normal && entry.data.length > 0)
      this.values.set(entry.index, decodeProposalValue(entry.data));
  }

  snapshotData(): Uint8Array {
    const encoded: EncodedState = { appliedIndex: this.applied, digest: this.currentDigest, values: [...this.values] };
    return utf8Encoder.encode(JSON.stringify(encoded));
  }

  clone(): SimStateMachine {
    return new SimStateMachine(this.applied, this.currentDigest, new Map(this.values));
  }
}

export function encodeProposalValue(value: string): Uint8Array {
  return utf8Encoder.encode(value);
}

export function decodeProposalValue(data: Uint8Array): string {
  return utf8Decoder.decode(data);
}
