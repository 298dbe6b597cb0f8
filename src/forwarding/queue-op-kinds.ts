/** The queue operations a follower forwards to the leader: OpCall.kind (proto/cluster.proto). */
export const QueueOpKind = {
  sendMessages: 1,
  receiveMessages: 2,
  deleteMessages: 3,
  changeMessageVisibility: 4,
} as const;

export type QueueOpKind = (typeof QueueOpKind)[keyof typeof QueueOpKind];
