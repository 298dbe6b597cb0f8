/**
 * The queue operations a cluster node's gateway calls. On the leader every call runs on the local
 * QueueService. On a follower the hot write operations (send, receive, delete, change visibility)
 * go to the leader over this node's operation stream (src/cluster/op-stream-client.ts): the leader
 * plans them on its freshest state and answers, and the follower answers its client with that.
 * The rest (queue lifecycle, attributes, tags, move tasks) run on the local QueueService, whose
 * transactions a follower forwards to the leader (txn-committer.ts); their reads stay local.
 *
 * Leadership is checked per call. An answer that did not come back (the stream to the leader broke:
 * the leader died or lost its link) is asked for again from the leader known next, until the
 * deadline (proposalTimeoutMs, plus the wait of a long poll); then the caller gets a retryable
 * error, which the gateway turns into a 5xx the client retries. Asking again is safe:
 * - a send carries the message ids this node chose and an idempotency key from which the leader
 *   derives its txn ids, so a send that committed before the answer was lost commits nothing more
 *   and answers with the same ids (send-messages.ts);
 * - a delete of a message already deleted is a no-op that succeeds; a FIFO delete the repeat
 *   refuses (its handle expired meanwhile) writes that refusal, so a first attempt still being
 *   committed by the old leader conflicts instead of deleting the message (handle-operations.ts);
 * - a visibility change sets the same message's timeout again, from the new leader's clock; but a
 *   repeat that is refused may be seeing the first attempt's own effect (a timeout of 0 makes the
 *   message visible: it is no longer in flight, or another consumer received it, ending a FIFO
 *   receive, or received and deleted it), so no refusal of a repeat is given as an answer: the
 *   caller gets ProposalOutcomeUnknown, a retryable error, as when no answer came at all;
 * - a receive is a new receive: what the lost one claimed comes back when its visibility timeout
 *   ends, as after any receive whose answer a client never read.
 * The same holds when the leader answers with an error that says leadership is moving (it is
 * stopping, or its proposal's fate is unknown). A "not leader" answer means nothing ran; the call
 * goes to the leader the answer names.
 *
 * Long polls wait on the leader, with its waiters (the leader sees every write first); the
 * follower's request signal (client gone, request deadline, shutdown) cancels the wait there, and
 * the leader still answers with whatever the receive had claimed by then.
 */
import { delay } from '../base/delay.js';
import { raftLimits, sqsLimits } from '../base/limits.js';
import type { Scheduler } from '../base/scheduler.js';
import type { ClusterNode } from '../cluster/cluster-node.js';
import {
  ForwardedOperationLostError,
  NoLeaderError,
  NotLeaderError,
  ProposalOutcomeUnknownError,
  RemoteOperationError,
} from '../cluster/errors.js';
import { leaderRetryBackoffMs } from '../cluster/leader-retry-backoff.js';
import type {
  ChangeVisibilityEntry,
  DeleteEntry,
  EntryFailure,
  EntrySuccess,
  ReceivedMessage,
  ReceiveOptions,
  SendContext,
  SendEntry,
  SendResult,
} from '../queue/queue-api.js';
import type { QueueOperations } from '../queue/queue-operations.js';
import type { QueueService } from '../queue/queue-service.js';
import {
  decodeHandleResult,
  decodeReceiveResult,
  decodeSendResult,
  encodeHandleArgs,
  encodeReceiveArgs,
  encodeSendArgs,
} from './queue-op-codec.js';
import { QueueOpKind } from './queue-op-kinds.js';

/** What forwarding needs of the node. */
export type ForwardingNode = Pick<
  ClusterNode,
  | 'id'
  | 'isLeader'
  | 'leaderId'
  | 'isStopping'
  | 'waitForLeader'
  | 'forwardOp'
  | 'onLeadershipChange'
  | 'metrics'
  | 'scheduler'
>;

export interface ForwardingQueueOperationsOptions {
  /** This node's queue service: the leader's calls, and the operations never forwarded. */
  readonly local: QueueService;
  readonly node: ForwardingNode;
  /** Unique ids: message ids and idempotency keys of forwarded sends. */
  readonly newId: () => string;
}

interface ForwardSpec<T> {
  readonly kind: QueueOpKind;
  /** The arguments of one attempt (a re-forwarded long poll waits only what is left). */
  readonly args: (elapsedMs: number) => Uint8Array;
  readonly decode: (bytes: Uint8Array) => T;
  /** Runs the operation here, when this node became the leader meanwhile. */
  readonly runLocally: () => Promise<T>;
  readonly waitMs: number;
  readonly signal?: AbortSignal;
  /** The answer when the signal ended the wait and no answer came back (an empty receive). */
  readonly whenAbandoned?: T;
  /**
   * Whether to stop waiting for the answer once another node leads, and ask that one. True for
   * operations whose repeat changes nothing; a receive waits for its answer instead (the old
   * leader ends its wait when it steps down), so what it claimed is not left unanswered.
   */
  readonly isAskedAgainOnLeaderChange: boolean;
  /**
   * Checks an answer got after an earlier attempt's answer was lost (that attempt may have
   * committed), and throws when the answer may be that attempt's own effect read as a refusal.
   */
  readonly checkAfterLostAnswer?: (answer: T) => void;
}

export class ForwardingQueueOperations implements QueueOperations {
  private readonly local: QueueService;
  private readonly node: ForwardingNode;
  /** Who hears when the leader this node knows of changes (calls waiting on a leader). */
  private readonly leaderChangeListeners = new Set<() => void>();
  private knownLeader: string;

  constructor(private readonly options: ForwardingQueueOperationsOptions) {
    this.local = options.local;
    this.node = options.node;
    this.knownLeader = options.node.leaderId();
    options.node.onLeadershipChange(() => {
      const leader = this.node.leaderId();
      if (leader === this.knownLeader) return;
      this.knownLeader = leader;
      for (const listener of [...this.leaderChangeListeners]) listener();
    });
  }

  // ---- forwarded to the leader ---------------------------------------------------------------

  sendMessages(name: string, entries: SendEntry[], context: SendContext): Promise<Array<SendResult | EntryFailure>> {
    if (this.node.isLeader()) return this.local.sendMessages(name, entries, context);
    const { newId } = this.options;
    // Chosen once, here: every attempt, wherever it runs, sends these ids under this key.
    const sendContext: SendContext = {
      senderId: context.senderId,
      messageIds: context.messageIds ?? entries.map(() => newId()),
      idempotencyKey: context.idempotencyKey ?? newId(),
    };
    const args = encodeSendArgs({
      queue: name,
      entries,
      senderId: sendContext.senderId,
      messageIds: sendContext.messageIds ?? [],
      idempotencyKey: sendContext.idempotencyKey ?? '',
    });
    return this.forward({
      kind: QueueOpKind.sendMessages,
      args: () => args,
      decode: decodeSendResult,
      runLocally: () => this.local.sendMessages(name, entries, sendContext),
      waitMs: 0,
      isAskedAgainOnLeaderChange: true,
    });
  }

  receiveMessages(name: string, options: ReceiveOptions): Promise<ReceivedMessage[]> {
    if (this.node.isLeader()) return this.local.receiveMessages(name, options);
    const { signal, ...rest } = options;
    // Unset, the queue's ReceiveMessageWaitTimeSeconds applies (known only to the leader): allow the longest.
    const waitMs = (options.waitTimeSeconds ?? sqsLimits.receiveWaitSecondsMax.value) * 1000;
    return this.forward({
      kind: QueueOpKind.receiveMessages,
      args: (elapsedMs) => {
        if (elapsedMs === 0) return encodeReceiveArgs({ queue: name, ...rest });
        // Asked again after a lost answer: wait only what is left of the wait (none if unknown).
        const leftSeconds =
          options.waitTimeSeconds === undefined ? 0 : Math.max(0, Math.floor((waitMs - elapsedMs) / 1000));
        return encodeReceiveArgs({ queue: name, ...rest, waitTimeSeconds: leftSeconds });
      },
      decode: decodeReceiveResult,
      runLocally: () => this.local.receiveMessages(name, options),
      waitMs,
      ...(signal !== undefined ? { signal } : {}),
      whenAbandoned: [],
      isAskedAgainOnLeaderChange: false,
    });
  }

  deleteMessages(name: string, entries: DeleteEntry[]): Promise<Array<EntrySuccess | EntryFailure>> {
    if (this.node.isLeader()) return this.local.deleteMessages(name, entries);
    const args = encodeHandleArgs({ queue: name, entries });
    return this.forward({
      kind: QueueOpKind.deleteMessages,
      args: () => args,
      decode: decodeHandleResult,
      runLocally: () => this.local.deleteMessages(name, entries),
      waitMs: 0,
      isAskedAgainOnLeaderChange: true,
    });
  }

  changeMessageVisibility(name: string, entries: ChangeVisibilityEntry[]): Promise<Array<EntrySuccess | EntryFailure>> {
    if (this.node.isLeader()) return this.local.changeMessageVisibility(name, entries);
    const args = encodeHandleArgs({ queue: name, entries });
    return this.forward({
      kind: QueueOpKind.changeMessageVisibility,
      args: () => args,
      decode: decodeHandleResult,
      runLocally: () => this.local.changeMessageVisibility(name, entries),
      waitMs: 0,
      isAskedAgainOnLeaderChange: true,
      checkAfterLostAnswer: (outcomes) => {
        // Not only "not in flight": once the first attempt made the message visible, another consumer may
        // have received it (the handle expired) or deleted it (it is gone) before the repeat ran.
        if (outcomes.some((outcome) => 'error' in outcome)) {
          throw new ProposalOutcomeUnknownError(
            'forwarded ChangeMessageVisibility',
            'asked again after a lost answer, the change was refused: the first attempt may have made it',
          );
        }
      },
    });
  }

  // ---- run here (their transactions are forwarded; their reads are linearizable) ------------

  createQueue: QueueService['createQueue'] = (input) => this.local.createQueue(input);
  getQueueName: QueueService['getQueueName'] = (name) => this.local.getQueueName(name);
  deleteQueue: QueueService['deleteQueue'] = (name) => this.local.deleteQueue(name);
  listQueues: QueueService['listQueues'] = (options) => this.local.listQueues(options);
  getQueueAttributes: QueueService['getQueueAttributes'] = (name, attributeNames) =>
    this.local.getQueueAttributes(name, attributeNames);
  setQueueAttributes: QueueService['setQueueAttributes'] = (name, attributes) =>
    this.local.setQueueAttributes(name, attributes);
  purgeQueue: QueueService['purgeQueue'] = (name) => this.local.purgeQueue(name);
  tagQueue: QueueService['tagQueue'] = (name, tags) => this.local.tagQueue(name, tags);
  untagQueue: QueueService['untagQueue'] = (name, tagKeys) => this.local.untagQueue(name, tagKeys);
  listQueueTags: QueueService['listQueueTags'] = (name) => this.local.listQueueTags(name);
  addPermission: QueueService['addPermission'] = (name, grant) => this.local.addPermission(name, grant);
  removePermission: QueueService['removePermission'] = (name, label) => this.local.removePermission(name, label);
  listDeadLetterSourceQueues: QueueService['listDeadLetterSourceQueues'] = (name, options) =>
    this.local.listDeadLetterSourceQueues(name, options);
  startMessageMoveTask: QueueService['startMessageMoveTask'] = (options) => this.local.startMessageMoveTask(options);
  listMessageMoveTasks: QueueService['listMessageMoveTasks'] = (options) => this.local.listMessageMoveTasks(options);
  cancelMessageMoveTask: QueueService['cancelMessageMoveTask'] = (taskHandle) =>
    this.local.cancelMessageMoveTask(taskHandle);
  moveMessageToDeadLetterQueue: QueueService['moveMessageToDeadLetterQueue'] = (name, input) =>
    this.local.moveMessageToDeadLetterQueue(name, input);

  // ---- the forwarding loop -------------------------------------------------------------------

  /**
   * The answer from `leader`, or ForwardedOperationLostError as soon as another node is known to
   * lead: a partitioned old leader may never answer, and the operation is safe to ask again.
   */
  private untilLeaderMoves<T>(answering: Promise<T>, leader: string): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      const onChange = (): void => {
        const now = this.node.leaderId();
        if (now === '' || now === leader) return;
        this.leaderChangeListeners.delete(onChange);
        answering.catch(() => undefined);
        reject(new ForwardedOperationLostError(leader, { cause: new Error(`the leader is now ${now}`) }));
      };
      this.leaderChangeListeners.add(onChange);
      answering.then(
        (answer) => {
          this.leaderChangeListeners.delete(onChange);
          resolve(answer);
        },
        (error: unknown) => {
          this.leaderChangeListeners.delete(onChange);
          reject(error instanceof Error ? error : new Error(String(error)));
        },
      );
    });
  }

  private async forward<T>(spec: ForwardSpec<T>): Promise<T> {
    const { node } = this;
    const { scheduler } = node;
    const startMs = scheduler.monotonicMs();
    const timeoutMs = raftLimits.proposalTimeoutMs.value + spec.waitMs;
    const deadlineMs = startMs + timeoutMs;
    let mayHaveRun = false;
    let lastError: unknown = null;
    let hintedLeader = '';
    for (let attempt = 0; ; attempt++) {
      const remainingMs = deadlineMs - scheduler.monotonicMs();
      if (remainingMs <= 0 || node.isStopping) break;
      if (attempt > 0 && spec.signal?.aborted === true && spec.whenAbandoned !== undefined) return spec.whenAbandoned;
      let leader: string;
      try {
        leader =
          hintedLeader !== ''
            ? hintedLeader
            : await node.waitForLeader(Math.min(remainingMs, raftLimits.leaderWaitMs.value));
      } catch (error) {
        lastError = error;
        if (!mayHaveRun) throw error;
        continue;
      }
      hintedLeader = '';
      if (leader === node.id) {
        if (node.isLeader()) return checked(spec, await spec.runLocally(), mayHaveRun);
        await delay(backoffMs(attempt, deadlineMs, scheduler), scheduler);
        continue;
      }
      try {
        const forwardedAtMs = scheduler.monotonicMs();
        const answering = node.forwardOp(leader, spec.kind, spec.args(scheduler.monotonicMs() - startMs), {
          waitMs: Math.max(
            0,
            Math.min(spec.waitMs - (scheduler.monotonicMs() - startMs), deadlineMs - scheduler.monotonicMs()),
          ),
          ...(spec.signal !== undefined ? { signal: spec.signal } : {}),
        });
        // A leader that went silent (no reset, no answer) is given up at the deadline, not when its link times out.
        const answer = await withDeadline(
          spec.isAskedAgainOnLeaderChange ? this.untilLeaderMoves(answering, leader) : answering,
          deadlineMs,
          leader,
          scheduler,
        );
        if (answer.kind === 'result') {
          node.metrics.forwardedOps.inc({ result: 'ok' });
          node.metrics.forwardedOpSeconds.observe((scheduler.monotonicMs() - forwardedAtMs) / 1000);
          return checked(spec, spec.decode(answer.result), mayHaveRun);
        }
        node.metrics.forwardedOps.inc({ result: 'not-leader' });
        lastError = new NotLeaderError(leader, answer.leaderHint);
        // The node it names is tried at once, but only early on: two nodes naming each other
        // during an election must not make this loop spin.
        if (answer.leaderHint !== '' && answer.leaderHint !== leader && attempt < 2) hintedLeader = answer.leaderHint;
        else await delay(backoffMs(attempt, deadlineMs, scheduler), scheduler);
      } catch (error) {
        if (!(error instanceof ForwardedOperationLostError || isLeadershipMoving(error))) {
          node.metrics.forwardedOps.inc({ result: 'error' });
          throw error;
        }
        node.metrics.forwardedOps.inc({ result: 'lost' });
        mayHaveRun = true;
        lastError = error;
        await delay(backoffMs(attempt, deadlineMs, scheduler), scheduler);
      }
    }
    if (mayHaveRun)
      throw new ProposalOutcomeUnknownError(`forwarded ${opName(spec.kind)}`, `not answered within ${timeoutMs} ms`, {
        cause: lastError,
      });
    throw new NoLeaderError(node.id, timeoutMs, { cause: lastError });
  }
}

/** `answer`, unless an earlier attempt's answer was lost and the spec's check refuses it. */
function checked<T>(spec: ForwardSpec<T>, answer: T, mayHaveRun: boolean): T {
  if (mayHaveRun) spec.checkAfterLostAnswer?.(answer);
  return answer;
}

/**
 * The leader's error says leadership is moving (it is stopping, or lost its place mid-operation):
 * the operation may be asked of the next leader, like one whose answer was lost.
 */
const leadershipMovingCodes = new Set([
  'NodeStopping',
  'NotLeader',
  'NoLeader',
  'ProposalOutcomeUnknown',
  'ForwardedOperationLost',
]);

function isLeadershipMoving(error: unknown): boolean {
  return error instanceof RemoteOperationError && error.isRetryable && leadershipMovingCodes.has(error.code);
}

function withDeadline<T>(promise: Promise<T>, deadlineMs: number, leader: string, scheduler: Scheduler): Promise<T> {
  let cancelTimer: (() => void) | undefined;
  const expired = new Promise<never>((_, reject) => {
    cancelTimer = scheduler.after(Math.max(0, deadlineMs - scheduler.monotonicMs()), () =>
      reject(new ForwardedOperationLostError(leader, { cause: new Error('no answer before the deadline') })),
    );
  });
  return Promise.race([promise, expired]).finally(() => cancelTimer?.());
}

function backoffMs(attempt: number, deadlineMs: number, scheduler: Scheduler): number {
  return Math.min(leaderRetryBackoffMs(attempt), Math.max(0, deadlineMs - scheduler.monotonicMs()));
}

function opName(kind: QueueOpKind): string {
  return Object.entries(QueueOpKind).find(([, value]) => value === kind)?.[0] ?? String(kind);
}
