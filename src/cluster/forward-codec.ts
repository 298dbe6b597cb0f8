/**
 * Maps transactions and their outcomes to the messages of proto/cluster.proto for forwarding
 * from a follower to the leader. (Inside Raft entries transactions travel in the storage layer's
 * own batch encoding; this is only the forwarding call.)
 */
import type { raftq } from '../gen/proto.js';
import type { Txn, TxnOutcome, TxnWrite } from '../storage/txn.js';

/** The OutcomeKind enum of proto/cluster.proto. */
export const OutcomeKind = {
  committed: 0,
  conflict: 1,
  clockSkew: 2,
  tooOld: 3,
  notLeader: 4,
  unknown: 5,
} as const;

const emptyBytes = new Uint8Array(0);

export function txnToWire(txn: Txn): raftq.cluster.Txn.$Properties {
  return {
    txnId: txn.txnId,
    startTs: txn.startTsUs,
    nowMs: txn.nowMs,
    readKeys: [...txn.readKeys],
    writes: txn.writes.map((write) =>
      write.kind === 'put'
        ? { key: write.key, value: write.value, isDelete: false, isNewKey: write.isNewKey === true }
        : {
            key: write.key,
            isDelete: true,
            isLiveKey: write.isLiveKey === true,
            sameCommitAsWriteBeforePlusOne: (write.sameCommitAsWriteBefore ?? -1) + 1,
          },
    ),
  };
}

export function txnFromWire(txn: raftq.cluster.Txn.$Properties): Txn {
  return {
    txnId: txn.txnId ?? '',
    startTsUs: Number(txn.startTs ?? 0),
    nowMs: Number(txn.nowMs ?? 0),
    readKeys: (txn.readKeys ?? []).map((key) => key),
    writes: (txn.writes ?? []).map((write): TxnWrite =>
      write.isDelete
        ? {
            kind: 'delete',
            key: write.key ?? emptyBytes,
            ...(write.isLiveKey === true ? { isLiveKey: true as const } : {}),
            ...((write.sameCommitAsWriteBeforePlusOne ?? 0) > 0
              ? { sameCommitAsWriteBefore: (write.sameCommitAsWriteBeforePlusOne ?? 0) - 1 }
              : {}),
          }
        : {
            kind: 'put',
            key: write.key ?? emptyBytes,
            value: write.value ?? emptyBytes,
            ...(write.isNewKey === true ? { isNewKey: true as const } : {}),
          },
    ),
  };
}

export function outcomeToWire(outcome: TxnOutcome, entryIndex: number): raftq.cluster.TxnResult.$Properties {
  switch (outcome.kind) {
    case 'committed':
      return { kind: OutcomeKind.committed, commitTs: outcome.commitTsUs, entryIndex };
    case 'conflict':
      return { kind: OutcomeKind.conflict, conflictKey: outcome.key, entryIndex };
    case 'clock-skew':
      return { kind: OutcomeKind.clockSkew, skewMs: outcome.skewMs, entryIndex };
    case 'too-old':
      return { kind: OutcomeKind.tooOld, watermarkTs: outcome.watermarkTs, entryIndex };
  }
}

/** The outcome of a forwarded txn, or null when the leader did not apply it (see `kind`). */
export function outcomeFromWire(result: raftq.cluster.TxnResult.$Properties): TxnOutcome | null {
  switch (result.kind ?? OutcomeKind.committed) {
    case OutcomeKind.committed:
      return { kind: 'committed', commitTsUs: Number(result.commitTs ?? 0) };
    case OutcomeKind.conflict:
      return { kind: 'conflict', key: result.conflictKey ?? emptyBytes };
    case OutcomeKind.clockSkew:
      return { kind: 'clock-skew', skewMs: Number(result.skewMs ?? 0) };
    case OutcomeKind.tooOld:
      return { kind: 'too-old', watermarkTs: Number(result.watermarkTs ?? 0) };
    default:
      return null;
  }
}
