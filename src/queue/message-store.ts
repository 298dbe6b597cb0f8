/**
 * How a message is kept in one queue generation, and the only code that reads or writes its rows:
 * - the data row ("data", partition, messageId): body, attributes, ids, times, partition and
 *   order, written once at send together with the initial receive state;
 * - the state row ("state", partition, messageId): the receive state (receive-state.ts), written
 *   by every receive and visibility change, absent until the first receive; when present it
 *   overrides the data row's receive fields;
 * - the index rows: vis (the message's place in the queue: where the send put it, by its first
 *   visibility time and order; what the queue index is built from), group (FIFO order) and, for
 *   a message whose place says little about its age, an age row (by retention start).
 *
 * Retention: a message's retention starts no later than its first visibility time (a send's
 * delay, a move's later arrival), so a vis row before the retention cutoff always belongs to an
 * expired message and the reaper finds most expired messages by scanning the vis rows
 * (reap-queue.ts). When the first visibility is at most the longest delay (15 minutes) after the
 * retention start — every send — the vis row is found at most that late, and no age row is
 * written: a consumed message costs one versioned write less. A message moved in long after its
 * retention started (a dead-letter or move-task copy of a standard message) gets an age row, so it
 * is found on time. Data rows of the older JSON layout always came with an age row.
 *
 * A receive or a visibility change writes the state row alone: the vis row stays where the send
 * put it, and the state row says when the message is visible now. (State rows of the older JSON
 * layout belong to messages whose vis row moved with every receive; the first change to such a
 * message puts its vis row back where the send put it.)
 *
 * OCC: a transaction that decides from a message reads both its data key (does the message still
 * exist?) and its state key (who holds it, when is it visible?) — `StoredMessage.readKeys` — so a
 * delete, a receive, a visibility change or a reap that commits first makes it conflict.
 */
import { sqsLimits } from '../base/limits.js';
import type { ReadView, TxnWrite } from '../storage/txn.js';
import type { GenerationKeys } from './layout/key-layout.js';
import { isLegacyDataRow } from './layout/message-data-row.js';
import { decodeMessageRecord, encodeMessageRecord, withReceiveFields, type MessageRecord } from './message-record.js';
import { encodeVisibilityState } from './layout/vis-row.js';
import { decodeReceiveState, encodeReceiveState, receiveStateOf } from './layout/receive-state.js';

const encoder = new TextEncoder();

/** A message as read: its record with the current receive state, and whether a state row holds it. */
export interface StoredMessage {
  readonly record: MessageRecord;
  /** False until the first receive (and for records written before state rows existed). */
  readonly hasStateRow: boolean;
  readonly dataKey: Uint8Array;
  /** The data row as stored (shared with the store's cache: never written into). */
  readonly dataRow: Uint8Array;
  readonly stateKey: Uint8Array;
  /** The key of the message's vis row as it is stored. */
  readonly visKey: Uint8Array;
  /** The vis row is not where the send put it (a state row of the older layout moved it). */
  readonly isVisRowMoved: boolean;
  /** The send's visibility time: where the vis row belongs. */
  readonly initialVisibleAtMs: number;
  /** The message has an age row (isAgeIndexed, or a data row of the older layout). */
  readonly hasAgeRow: boolean;
  /**
   * The vis, age and group rows hold the versions that the newest version of the data row was
   * written with (they share its commit): true of every message whose data row is of the binary
   * layout and whose vis row has not moved. No node that writes that layout moves a vis row, and
   * were one to meet a message whose vis row an older node moved, putting it back rewrites the
   * data row with it (receiveStateWrites), so the rows share a commit again.
   */
  readonly areIndexRowsAsSent: boolean;
  /** The keys a decision about this message depends on: its data row and its state row. */
  readonly readKeys: readonly [Uint8Array, Uint8Array];
}

export class MessageStore {
  constructor(readonly keys: GenerationKeys) {}

  /**
   * Reads data and state rows together; undefined when the data row is gone (a stray state row is
   * the reaper's). `isNeverReceived`: the message's vis row says it was never received (`pending`),
   * so it has no state row and the read of one (a seek for a key that is not there) is skipped. A
   * receive writes the state key anyway, so a rival receive still conflicts with it.
   */
  async read(
    view: ReadView,
    partition: number,
    messageId: string,
    options: { isNeverReceived?: boolean } = {},
  ): Promise<StoredMessage | undefined> {
    const dataKey = this.keys.data(partition, messageId);
    const stateKey = this.keys.receiveState(partition, messageId);
    let dataBytes: Uint8Array | undefined;
    let stateBytes: Uint8Array | undefined;
    if (options.isNeverReceived === true) dataBytes = await view.get(dataKey);
    else [dataBytes, stateBytes] = await Promise.all([view.get(dataKey), view.get(stateKey)]);
    return this.storedMessageOf(partition, messageId, dataKey, stateKey, dataBytes, stateBytes);
  }

  /**
   * read() of several messages of one partition, their rows read together (ReadView.getMany):
   * the data rows of messages sent one after another lie side by side and come in one pass, and
   * so do their state rows.
   */
  readMany(
    view: ReadView,
    partition: number,
    messages: ReadonlyArray<{ readonly messageId: string; readonly isNeverReceived: boolean }>,
  ): Promise<Array<StoredMessage | undefined>> {
    return this.readTogether(
      view,
      messages.map(({ messageId, isNeverReceived }) => ({ partition, messageId, isNeverReceived })),
    );
  }

  /**
   * read() of messages named by (partition, messageId) — a batch's receipt handles — with every
   * data row read in one getMany and every state row in another, so a batch costs two reads of
   * the view, not two per message.
   */
  readNamed(
    view: ReadView,
    named: ReadonlyArray<{ readonly partition: number; readonly messageId: string }>,
  ): Promise<Array<StoredMessage | undefined>> {
    return this.readTogether(
      view,
      named.map(({ partition, messageId }) => ({ partition, messageId, isNeverReceived: false })),
    );
  }

  /** The data rows in one getMany, the state rows of the messages that may have one in another. */
  private async readTogether(
    view: ReadView,
    messages: ReadonlyArray<{
      readonly partition: number;
      readonly messageId: string;
      readonly isNeverReceived: boolean;
    }>,
  ): Promise<Array<StoredMessage | undefined>> {
    const dataKeys = messages.map(({ partition, messageId }) => this.keys.data(partition, messageId));
    const stateKeys = messages.map(({ partition, messageId }) => this.keys.receiveState(partition, messageId));
    const received = messages.flatMap((message, i) => (message.isNeverReceived ? [] : [i]));
    const [dataRows, receivedStateRows] = await Promise.all([
      view.getMany(dataKeys),
      received.length === 0 ? [] : view.getMany(received.map((i) => stateKeys[i] as Uint8Array)),
    ]);
    const stateRows = new Array<Uint8Array | undefined>(messages.length).fill(undefined);
    received.forEach((i, at) => (stateRows[i] = receivedStateRows[at]));
    return messages.map(({ partition, messageId }, i) =>
      this.storedMessageOf(
        partition,
        messageId,
        dataKeys[i] as Uint8Array,
        stateKeys[i] as Uint8Array,
        dataRows[i],
        stateRows[i],
      ),
    );
  }

  private storedMessageOf(
    partition: number,
    messageId: string,
    dataKey: Uint8Array,
    stateKey: Uint8Array,
    dataBytes: Uint8Array | undefined,
    stateBytes: Uint8Array | undefined,
  ): StoredMessage | undefined {
    if (dataBytes === undefined) return undefined;
    const initial = decodeMessageRecord(dataBytes);
    const isLegacyRow = isLegacyDataRow(dataBytes);
    const initialVisKey = this.keys.visibility(partition, initial.visibleAtMs, initial.order, messageId);
    const stored = stateBytes === undefined ? undefined : decodeReceiveState(stateBytes);
    const isVisRowMoved = stored?.isMovingVisRow === true;
    // One object literal for every message read, so that its readers see one shape.
    return {
      // Every receive field comes from the state row when there is one, none from the data row.
      record: stored === undefined ? initial : withReceiveFields(initial, stored.state),
      hasStateRow: stored !== undefined,
      dataKey,
      dataRow: dataBytes,
      stateKey,
      visKey:
        stored !== undefined && isVisRowMoved
          ? this.keys.visibility(partition, stored.state.visibleAtMs, initial.order, messageId)
          : initialVisKey,
      isVisRowMoved,
      initialVisibleAtMs: initial.visibleAtMs,
      hasAgeRow: isLegacyRow || isAgeIndexed(initial),
      areIndexRowsAsSent: !isVisRowMoved && !isLegacyRow,
      readKeys: [dataKey, stateKey],
    };
  }

  /**
   * A new (or moved-in) message: data row with its initial receive state (no state row), vis row,
   * the age row if it needs one (isAgeIndexed) and, for FIFO, group row. `isNewMessageId`: the id was minted for this send, so none of these
   * keys has ever had a version and the apply step may skip reading them (TxnWrite.isNewKey). A
   * moved message keeps its id and may come back to a generation that once held it, so moves never
   * say so.
   */
  insertWrites(record: MessageRecord, options: { isNewMessageId: boolean } = { isNewMessageId: false }): TxnWrite[] {
    const { keys } = this;
    const vouch = options.isNewMessageId ? { isNewKey: true as const } : {};
    const writes: TxnWrite[] = [
      { kind: 'put', key: keys.data(record.partition, record.messageId), value: encodeMessageRecord(record), ...vouch },
      {
        kind: 'put',
        key: this.visibilityKey(record),
        value: encodeVisibilityState(
          record.receiptToken === undefined ? 'pending' : 'inflight',
          record.retentionStartMs,
        ),
        ...vouch,
      },
    ];
    if (isAgeIndexed(record))
      writes.push({
        kind: 'put',
        key: keys.age(record.partition, record.retentionStartMs, record.messageId),
        value: new Uint8Array(0),
        ...vouch,
      });
    if (record.sequenceNumber !== undefined && record.messageGroupId !== undefined) {
      writes.push({
        kind: 'put',
        key: keys.groupMember(record.partition, record.messageGroupId, record.order),
        value: encoder.encode(record.messageId),
        ...vouch,
      });
    }
    return writes;
  }

  /**
   * A receive or visibility change to `after` (same message, other receive state): the state row
   * is written; the data and vis rows are not touched (but a vis row an older layout moved goes
   * back where the send put it).
   */
  receiveStateWrites(message: StoredMessage, after: MessageRecord): TxnWrite[] {
    const writes: TxnWrite[] = [];
    if (message.isVisRowMoved) {
      const { partition, order, messageId } = message.record;
      writes.push({ kind: 'delete', key: message.visKey });
      writes.push({
        kind: 'put',
        key: this.keys.visibility(partition, message.initialVisibleAtMs, order, messageId),
        value: encodeVisibilityState('inflight', message.record.retentionStartMs),
      });
      // Only older nodes moved vis rows, and they wrote data rows as JSON; should a binary one
      // meet a moved vis row all the same, its rows are written again with the vis row, so that
      // they share one commit as areIndexRowsAsSent says.
      if (!isLegacyDataRow(message.dataRow)) writes.push(...this.rowsBesideVisRow(message));
    }
    writes.push({ kind: 'put', key: message.stateKey, value: encodeReceiveState(receiveStateOf(after)) });
    return writes;
  }

  /** Deletes every row of a message (the dedup row stays: it must outlive the message for its window). */
  deleteWrites(message: StoredMessage): TxnWrite[] {
    const { keys } = this;
    const { record } = message;
    // The vis, age and group rows are written with the data row and moved or removed only with
    // the data or state row, both of which `message` was read from: they hold values now, and a
    // rival that changes them changes a read key too (TxnWrite.isLiveKey). When they are as the
    // send wrote them, their versions are the data row's (TxnWrite.sameCommitAsWriteBefore): the
    // data row's delete comes first, so each one names it by its own place.
    const writes: TxnWrite[] = [{ kind: 'delete', key: message.dataKey }];
    const deleteIndexRow = (key: Uint8Array): void => {
      writes.push(
        message.areIndexRowsAsSent
          ? { kind: 'delete', key, isLiveKey: true, sameCommitAsWriteBefore: writes.length }
          : { kind: 'delete', key, isLiveKey: true },
      );
    };
    deleteIndexRow(message.visKey);
    if (message.hasAgeRow) deleteIndexRow(keys.age(record.partition, record.retentionStartMs, record.messageId));
    if (message.hasStateRow) writes.push({ kind: 'delete', key: message.stateKey });
    if (record.sequenceNumber !== undefined && record.messageGroupId !== undefined)
      deleteIndexRow(keys.groupMember(record.partition, record.messageGroupId, record.order));
    return writes;
  }

  /** The data row, and the age and group rows if the message has them, with their values unchanged. */
  private rowsBesideVisRow(message: StoredMessage): TxnWrite[] {
    const { keys } = this;
    const { record } = message;
    const writes: TxnWrite[] = [{ kind: 'put', key: message.dataKey, value: message.dataRow }];
    if (message.hasAgeRow)
      writes.push({
        kind: 'put',
        key: keys.age(record.partition, record.retentionStartMs, record.messageId),
        value: new Uint8Array(0),
      });
    if (record.sequenceNumber !== undefined && record.messageGroupId !== undefined)
      writes.push({
        kind: 'put',
        key: keys.groupMember(record.partition, record.messageGroupId, record.order),
        value: encoder.encode(record.messageId),
      });
    return writes;
  }

  private visibilityKey(record: MessageRecord): Uint8Array {
    return this.keys.visibility(record.partition, record.visibleAtMs, record.order, record.messageId);
  }
}

/**
 * Whether a message stored now gets an age row: its first visibility time (`visibleAtMs` of the
 * record as inserted, which the data row keeps) is before its retention start or more than the
 * longest delay after it, so its vis row would find its expiry late.
 */
export function isAgeIndexed(record: MessageRecord): boolean {
  const leadMs = record.visibleAtMs - record.retentionStartMs;
  return !(leadMs >= 0 && leadMs <= sqsLimits.delaySecondsMax.value * 1000);
}
