import { isAtOneAppliedIndex, type ReplicaState } from '../checkers/cluster-checker.js';
import type { NodeStatus } from './node-admin.js';

export interface ReplicaConvergence {
  readonly isConverged: boolean;
  readonly states: ReplicaState[];
  readonly silent: string[];
}

/**
 * Polls every node's /status until one poll finds them all at the same applied index, or the
 * bound passes. The leader may still commit background entries (the reaper, clock samples), so a
 * poll can catch the replicas a step apart: polling again is how they are caught level. The states
 * of the converged poll are what the cluster checker compares.
 */
export async function awaitReplicaConvergence(
  ids: readonly string[],
  statusOf: (id: string) => Promise<NodeStatus | undefined>,
  options: { boundMs: number; pollMs: number; nowMs: () => number },
): Promise<ReplicaConvergence> {
  const deadlineMs = options.nowMs() + options.boundMs;
  for (;;) {
    const answers = await Promise.all(ids.map((id) => statusOf(id)));
    const states: ReplicaState[] = [];
    const silent: string[] = [];
    answers.forEach((s, i) => {
      const node = ids[i] as string;
      if (s === undefined) silent.push(node);
      else states.push({ node, appliedIndex: s.appliedIndex, stateDigest: s.stateDigest });
    });
    const isConverged = silent.length === 0 && isAtOneAppliedIndex(states);
    if (isConverged || options.nowMs() >= deadlineMs) return { isConverged, states, silent };
    await new Promise((resolve) => setTimeout(resolve, options.pollMs));
  }
}
