/**
 * What a proxied link does to the bytes that cross it, in both directions of every TCP connection
 * it carries:
 * - pass: forwards them;
 * - blackhole: accepts connections and reads, but drops everything and never answers (a silent
 *   network: the peer learns nothing until its own timeouts fire);
 * - reset: answers every new and existing connection with a TCP RST (a host that refuses);
 * - latency: forwards each chunk after `delayMs`, in order.
 */
export type LinkMode =
  | { readonly kind: 'pass' }
  | { readonly kind: 'blackhole' }
  | { readonly kind: 'reset' }
  | { readonly kind: 'latency'; readonly delayMs: number };

export const passMode: LinkMode = { kind: 'pass' };

export function describeLinkMode(mode: LinkMode): string {
  return mode.kind === 'latency' ? `latency ${mode.delayMs} ms` : mode.kind;
}
