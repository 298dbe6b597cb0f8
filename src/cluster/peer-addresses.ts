/**
 * Where a node reaches its peers: the transport's peer list follows the membership (addresses
 * given with --peers win over announced ones), and a peer with no known address is answered at the
 * address it announces with its messages. It stands apart from the Ready loop's wiring
 * (node-wiring.ts) because it decides addresses only, from the configuration and membership.
 */
import type { Logger } from 'pino';
import type { Membership } from './membership-record.js';
import { parseHostPort, type NodeConfig } from './node-config.js';
import type { NodeTransport } from './node-transport.js';

/** Points the transport at every member but this node; --peers addresses win over announced ones. */
export function refreshPeerAddresses(config: NodeConfig, membership: Membership, transport: NodeTransport): void {
  const members = new Set([...membership.confState.voters, ...membership.confState.learners]);
  for (const id of Object.keys(config.peers)) members.add(id);
  members.delete(config.id);
  for (const id of members) {
    const address = config.peers[id] ?? membership.addresses[id];
    if (address !== undefined) transport.setPeer(id, address);
  }
  for (const id of transport.peerIds()) if (!members.has(id)) transport.removePeer(id);
}

/** This node's Raft address as the cluster knows it (announced at its addition, or given with --peers); '' if neither. */
export function announcedAddressOf(config: NodeConfig, membership: Membership): string {
  return membership.addresses[config.id] ?? config.peers[config.id] ?? '';
}

/**
 * A peer this node has no address for (it was added while this node was behind: down, cut off,
 * or caught up by a snapshot older than the addition) can still be answered at the address it
 * announces with its messages. Without this, a lagging member could never answer such a peer
 * once it leads, so never receive the entries that would teach it the address: stuck for good.
 * Only a missing address is filled in; membership and --peers addresses are never overridden.
 * The next refreshPeers drops it again if the peer is still no member here, and its next
 * message brings it back.
 */
export function learnAnnouncedAddress(
  parts: { config: NodeConfig; transport: NodeTransport; logger: Logger },
  peerId: string,
  fromAddress: string,
): void {
  const { config, transport, logger } = parts;
  if (fromAddress === '' || peerId === config.id || peerId === '' || transport.peerAddress(peerId) !== undefined)
    return;
  try {
    parseHostPort('announced address', fromAddress);
  } catch {
    return;
  }
  transport.setPeer(peerId, fromAddress);
  logger.info(
    { peerId, address: fromAddress },
    'answering a peer at the address it announced (this node has not applied its addition yet)',
  );
}
