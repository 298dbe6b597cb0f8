/** Applies versions to a store as one batch of the apply step would, without transactions (tests of reads and caches). */
import type { MvccStore, VersionWrite } from '../../src/storage/mvcc-store.js';

export async function applyVersions(store: MvccStore, versions: VersionWrite[]): Promise<void> {
  const lastCommitTs = Math.max(...versions.map((v) => v.commitTsUs));
  await store.applyExclusive(
    async () => ({
      batch: {
        versions,
        systemWrites: [],
        appliedIndex: store.appliedIndex + 1,
        lastCommitTs,
        horizon: store.horizonTracker.afterCommit(lastCommitTs),
      },
      result: undefined,
    }),
    { sync: false },
  );
}
