import { SeededPrng } from '../../../src/base/prng.js';
import { MemoryRaftStorage } from '../../../src/raft/memory-storage.js';
import { raftMessage } from '../../../src/raft/raft-message.js';
import { RawNode } from '../../../src/raft/raw-node.js';
import type { Entry, NodeId, RaftMessage, Ready } from '../../../src/raft/types.js';
import { EntryType, MessageType } from '../../../src/raft/types.js';
import { testRaftConfig, type RaftTestTuning } from './test-raft-config.js';

/**
 * One RawNode on its own, for tests that feed it messages by hand and look at what it answers.
 * The harness plays the runtime's part of the Ready contract (persist, then hand out messages,
 * then advance) so tests see exactly what would go on the wire.
 */
export interface HarnessOptions extends RaftTestTuning {
  readonly id?: NodeId;
  readonly voters?: readonly NodeId[];
  readonly learners?: readonly NodeId[];
  /** Terms of the entries at indexes 1, 2, …; the log starts empty if omitted. */
  readonly logTerms?: readonly number[];
  readonly term?: number;
  readonly vote?: NodeId | '';
  readonly commit?: number;
  readonly seed?: number;
}

export class NodeHarness {
  readonly raw: RawNode;
  readonly storage: MemoryRaftStorage;
  readonly id: NodeId;
  readonly electionTimeoutTicks: number;
  /** Committed entries handed out so far, in order. */
  readonly committed: Entry[] = [];

  constructor(options: HarnessOptions = {}) {
    this.id = options.id ?? '1';
    this.electionTimeoutTicks = options.electionTimeoutTicks ?? 10;
    const term = options.term ?? Math.max(0, ...(options.logTerms ?? []));
    this.storage = new MemoryRaftStorage({
      confState: { voters: [...(options.voters ?? ['1', '2', '3'])], learners: [...(options.learners ?? [])] },
      hardState: { term, vote: options.vote ?? '', commit: options.commit ?? 0 },
    });
    this.storage.append((options.logTerms ?? []).map((t, i) => entry(t, i + 1)));
    this.raw = new RawNode(
      testRaftConfig({ id: this.id, storage: this.storage, prng: new SeededPrng(options.seed ?? 7) }, options, {
        preVote: false,
        checkQuorum: false,
      }),
    );
  }

  /** Runs every pending Ready through the contract and returns the messages they carried. */
  flush(): RaftMessage[] {
    const messages: RaftMessage[] = [];
    while (this.raw.hasReady()) messages.push(...this.handleReady(this.raw.ready()));
    return messages;
  }

  handleReady(ready: Ready): readonly RaftMessage[] {
    if (ready.snapshot !== null) this.storage.applySnapshot(ready.snapshot);
    this.storage.append(ready.entries);
    if (ready.hardState !== null) this.storage.setHardState(ready.hardState);
    this.committed.push(...ready.committedEntries);
    this.raw.advance(ready);
    return ready.messages;
  }

  step(fields: Partial<RaftMessage> & Pick<RaftMessage, 'type' | 'from' | 'term'>): RaftMessage[] {
    this.raw.step(raftMessage({ to: this.id, ...fields }));
    return this.flush();
  }

  tick(times = 1): RaftMessage[] {
    for (let i = 0; i < times; i++) this.raw.tick();
    return this.flush();
  }

  /** Ticks until the node starts an election (at most twice the election timeout). */
  tickUntilCampaign(): RaftMessage[] {
    for (let i = 0; i < 2 * this.electionTimeoutTicks; i++) {
      const messages = this.tick();
      if (messages.some((m) => m.type === MessageType.Vote || m.type === MessageType.PreVote)) return messages;
    }
    throw new Error('the node never campaigned');
  }

  /** Makes this node leader of a 3-node cluster by granting votes from 2 (no PreVote). */
  becomeLeader(): RaftMessage[] {
    this.raw.campaign();
    const votes = this.flush().filter((m) => m.type === MessageType.Vote || m.type === MessageType.PreVote);
    let messages: RaftMessage[] = [];
    for (const vote of votes) {
      const responseType = vote.type === MessageType.Vote ? MessageType.VoteResp : MessageType.PreVoteResp;
      messages = messages.concat(this.step({ type: responseType, from: vote.to, term: vote.term }));
      if (this.raw.status().role === 'leader') break;
    }
    if (messages.some((m) => m.type === MessageType.Vote)) {
      // PreVote round won: answer the real vote too.
      for (const vote of messages.filter((m) => m.type === MessageType.Vote)) {
        messages = messages.concat(this.step({ type: MessageType.VoteResp, from: vote.to, term: vote.term }));
        if (this.raw.status().role === 'leader') break;
      }
    }
    return messages;
  }

  logTerms(): number[] {
    const first = this.storage.firstIndex();
    const last = this.storage.lastIndex();
    if (last < first) return [];
    return this.storage.entries(first, last + 1, Number.MAX_SAFE_INTEGER).map((e) => e.term);
  }
}

export function entry(term: number, index: number, data = ''): Entry {
  return { term, index, type: EntryType.Normal, data: new TextEncoder().encode(data) };
}

export function ofType(messages: readonly RaftMessage[], type: MessageType): RaftMessage[] {
  return messages.filter((m) => m.type === type);
}
