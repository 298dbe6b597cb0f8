/**
 * How nodes authenticate each other: a shared cluster secret in the metadata of every call, and
 * optionally TLS. With a CA, TLS is mutual: every node presents its certificate and checks the
 * other's against that CA.
 */
import { timingSafeEqual } from 'node:crypto';
import { readFileSync } from 'node:fs';
import * as grpc from '@grpc/grpc-js';
import { raftLimits } from '../base/limits.js';
import { clusterSecretMetadataKey, senderIdMetadataKey } from './grpc-services.js';

export interface TlsFiles {
  readonly certPem: Buffer;
  readonly keyPem: Buffer;
  /** The CA that signed every node's certificate; with it, clients must present certificates too. */
  readonly caPem: Buffer | null;
}

export interface TransportSecurity {
  /** '' means inter-node calls are not authenticated (a one-node cluster, or a trusted network). */
  readonly clusterSecret: string;
  readonly tls: TlsFiles | null;
}

export function loadTlsFiles(paths: { certFile: string; keyFile: string; caFile: string | null }): TlsFiles {
  return {
    certPem: readFileSync(paths.certFile),
    keyPem: readFileSync(paths.keyFile),
    caPem: paths.caFile === null ? null : readFileSync(paths.caFile),
  };
}

export function serverCredentials(security: TransportSecurity): grpc.ServerCredentials {
  const tls = security.tls;
  if (tls === null) return grpc.ServerCredentials.createInsecure();
  return grpc.ServerCredentials.createSsl(
    tls.caPem,
    [{ cert_chain: tls.certPem, private_key: tls.keyPem }],
    tls.caPem !== null,
  );
}

export function channelCredentials(security: TransportSecurity): grpc.ChannelCredentials {
  const tls = security.tls;
  if (tls === null) return grpc.credentials.createInsecure();
  return grpc.credentials.createSsl(tls.caPem, tls.keyPem, tls.certPem);
}

/** Options shared by every peer channel and the server: message size and dead-peer detection. */
export const channelOptions: grpc.ChannelOptions = {
  'grpc.max_receive_message_length': raftLimits.grpcMessageBytesMax.value,
  'grpc.max_send_message_length': raftLimits.grpcMessageBytesMax.value,
  'grpc.keepalive_time_ms': raftLimits.peerKeepaliveMs.value,
  'grpc.keepalive_timeout_ms': raftLimits.peerKeepaliveMs.value,
  'grpc.keepalive_permit_without_calls': 1,
  'grpc.initial_reconnect_backoff_ms': raftLimits.peerReconnectBackoffMsMin.value * 2,
  'grpc.min_reconnect_backoff_ms': raftLimits.peerReconnectBackoffMsMin.value,
  'grpc.max_reconnect_backoff_ms': raftLimits.peerReconnectBackoffMsMax.value,
  'grpc.enable_retries': 0,
};

export const serverOptions: grpc.ServerOptions = {
  'grpc.max_receive_message_length': raftLimits.grpcMessageBytesMax.value,
  'grpc.max_send_message_length': raftLimits.grpcMessageBytesMax.value,
  'grpc.keepalive_time_ms': raftLimits.peerKeepaliveMs.value,
  'grpc.keepalive_timeout_ms': raftLimits.peerKeepaliveMs.value,
  'grpc.keepalive_permit_without_calls': 1,
  'grpc.http2.min_ping_interval_without_data_ms': Math.floor(raftLimits.peerKeepaliveMs.value / 2),
};

export function callMetadata(security: TransportSecurity, selfId: string): grpc.Metadata {
  const metadata = new grpc.Metadata();
  if (security.clusterSecret !== '') metadata.set(clusterSecretMetadataKey, security.clusterSecret);
  metadata.set(senderIdMetadataKey, selfId);
  return metadata;
}

/** True when the call presents this cluster's secret (or the cluster has none). */
export function hasClusterSecret(security: TransportSecurity, metadata: grpc.Metadata): boolean {
  if (security.clusterSecret === '') return true;
  const presented = metadata.get(clusterSecretMetadataKey)[0];
  if (typeof presented !== 'string') return false;
  const expected = Buffer.from(security.clusterSecret);
  const actual = Buffer.from(presented);
  return actual.length === expected.length && timingSafeEqual(actual, expected);
}

export function senderIdOf(metadata: grpc.Metadata): string {
  const value = metadata.get(senderIdMetadataKey)[0];
  return typeof value === 'string' ? value : '';
}
