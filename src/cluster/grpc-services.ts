/**
 * gRPC method definitions for the services declared in proto/raft.proto and proto/cluster.proto,
 * serialized with the generated protobufjs code (so no .proto is parsed at run time).
 */
import type * as grpc from '@grpc/grpc-js';
import { raftq } from '../gen/proto.js';

interface WireType<T, P> {
  encode(message: P): { finish(): Uint8Array };
  decode(bytes: Uint8Array): T;
}

function toBuffer(bytes: Uint8Array): Buffer {
  return Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

export type Method<Req, Res> = grpc.MethodDefinition<Req, Res>;

function method<ReqT, ReqP, ResT, ResP>(
  path: string,
  kind: { requestStream: boolean; responseStream?: boolean },
  requestType: WireType<ReqT, ReqP>,
  responseType: WireType<ResT, ResP>,
): grpc.MethodDefinition<ReqP, ResP> & {
  requestDeserialize(bytes: Buffer): ReqT;
  responseDeserialize(bytes: Buffer): ResT;
} {
  return {
    path,
    requestStream: kind.requestStream,
    responseStream: kind.responseStream === true,
    requestSerialize: (message: ReqP) => toBuffer(requestType.encode(message).finish()),
    requestDeserialize: (bytes: Buffer) => requestType.decode(bytes),
    responseSerialize: (message: ResP) => toBuffer(responseType.encode(message).finish()),
    responseDeserialize: (bytes: Buffer) => responseType.decode(bytes),
  } as never;
}

/** Messages serialized by the caller (raft-codec.ts encodeRaftEnvelope) and handed over as received. */
const preEncoded: WireType<Uint8Array, Uint8Array> = {
  encode: (bytes) => ({ finish: () => bytes }),
  decode: (bytes) => bytes,
};

const stream = { requestStream: true };
const unary = { requestStream: false };
const bidi = { requestStream: true, responseStream: true };
const r = raftq.raft;
const c = raftq.cluster;

export const raftTransportMethods = {
  // RaftEnvelope on the wire; encoded and decoded by raft-codec.ts so that entries are encoded once.
  link: method('/raftq.raft.RaftTransport/Link', stream, preEncoded, r.LinkAck),
  sendSnapshot: method('/raftq.raft.RaftTransport/SendSnapshot', stream, r.SnapshotChunk, r.SnapshotAck),
} as const;

export const opForwardingMethods = {
  forwardOps: method('/raftq.cluster.OpForwarding/ForwardOps', bidi, c.OpCallBatch, c.OpReplyBatch),
} as const;

export const clusterMethods = {
  forwardTxns: method('/raftq.cluster.ClusterService/ForwardTxns', unary, c.ForwardTxnsRequest, c.ForwardTxnsResponse),
  readIndex: method('/raftq.cluster.ClusterService/ReadIndex', unary, c.ReadIndexRequest, c.ReadIndexResponse),
  addMember: method('/raftq.cluster.ClusterService/AddMember', unary, c.AddMemberRequest, c.MembershipResponse),
  removeMember: method(
    '/raftq.cluster.ClusterService/RemoveMember',
    unary,
    c.RemoveMemberRequest,
    c.MembershipResponse,
  ),
  transferLeader: method(
    '/raftq.cluster.ClusterService/TransferLeader',
    unary,
    c.TransferLeaderRequest,
    c.MembershipResponse,
  ),
  status: method('/raftq.cluster.ClusterService/Status', unary, c.StatusRequest, c.StatusResponse),
  clockSample: method('/raftq.cluster.ClusterService/ClockSample', unary, c.ClockSampleRequest, c.ClockSampleResponse),
} as const;

/** Metadata keys every inter-node call carries. */
export const clusterSecretMetadataKey = 'x-raftq-cluster-secret';
export const senderIdMetadataKey = 'x-raftq-node-id';
