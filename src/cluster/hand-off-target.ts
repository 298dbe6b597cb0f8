/**
 * Which voter a leader that is shutting down hands leadership to: one that answered lately, the
 * most caught-up of those; else the most caught-up voter at all. CheckQuorum clears every
 * follower's "recently active" mark each election timeout and the next heartbeat replies set it
 * again, so a shutdown that lands just after a clearing sees no voter active; refusing to hand over
 * then left the cluster an election timeout without a leader (and it happened in a CI run). A
 * target that is in fact gone costs only the transfer's wait, which the drain's deadline bounds.
 */
export function handOffTarget(
  voters: readonly string[],
  progress: ReadonlyMap<string, { readonly match: number; readonly isRecentlyActive: boolean }>,
  selfId: string,
): string | null {
  let best: { id: string; match: number; isRecentlyActive: boolean } | null = null;
  for (const id of voters) {
    const peer = progress.get(id);
    if (id === selfId || peer === undefined) continue;
    const isBetter =
      best === null ||
      (peer.isRecentlyActive && !best.isRecentlyActive) ||
      (peer.isRecentlyActive === best.isRecentlyActive && peer.match > best.match);
    if (isBetter) best = { id, match: peer.match, isRecentlyActive: peer.isRecentlyActive };
  }
  return best?.id ?? null;
}
