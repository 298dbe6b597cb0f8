/**
 * What the nodes themselves say about a run, beside the clients' history. A run whose history
 * checks out is still invalid when a node died without being asked to, a nemesis step failed (the
 * faults the run claims were not the faults it made), a queue did not drain, a node logged a fatal
 * line, or the replicas, once they report the same applied index, hold different states.
 */

/** One node's final report: its applied index and the digest of its state at that index. */
export interface ReplicaState {
  readonly node: string;
  readonly appliedIndex: number;
  readonly stateDigest: string | undefined;
}

export interface ClusterFacts {
  /** Every exit no one asked for ("n2 exited by itself (code 1, …)"). */
  readonly unexpectedExits: readonly string[];
  /** Every nemesis start or heal that failed. */
  readonly nemesisErrors: readonly string[];
  /** Nodes that were not ready after the heal, within the recovery bound. */
  readonly notReadyAfterHeal: readonly string[];
  /** Each workload's drain: whether its queue was seen to stay empty. */
  readonly drains: readonly { readonly workload: string; readonly isEmpty: boolean }[];
  /** The replicas' final states: the first poll in which every node reported the same applied index. */
  readonly replicas: {
    readonly isConverged: boolean;
    /** The last states read (the converged ones, or the last try). */
    readonly states: readonly ReplicaState[];
    /** Nodes that did not answer /status at all. */
    readonly silent: readonly string[];
  };
  /** Fatal lines found in the nodes' own logs, each prefixed by its node. */
  readonly fatalLogLines: readonly string[];
}

export interface ClusterResult {
  readonly valid: boolean;
  /** Every reason the run is invalid, in words; empty when valid. */
  readonly problems: string[];
  readonly unexpectedExitCount: number;
  readonly nemesisErrorCount: number;
  readonly fatalLogLineCount: number;
  readonly replicas: ClusterFacts['replicas'];
}

const listedLinesMax = 20;

export function checkCluster(facts: ClusterFacts): ClusterResult {
  const problems: string[] = [];
  for (const exit of facts.unexpectedExits) problems.push(`node died unasked: ${exit}`);
  for (const error of facts.nemesisErrors) problems.push(`nemesis step failed: ${error}`);
  if (facts.notReadyAfterHeal.length > 0)
    problems.push(`not ready after the heal: ${facts.notReadyAfterHeal.join(', ')}`);
  for (const drain of facts.drains)
    if (!drain.isEmpty)
      problems.push(`the ${drain.workload} queue did not drain: it never stayed empty before the drain deadline`);
  for (const line of facts.fatalLogLines.slice(0, listedLinesMax)) problems.push(`fatal log line: ${line}`);
  if (facts.fatalLogLines.length > listedLinesMax)
    problems.push(`… and ${facts.fatalLogLines.length - listedLinesMax} more fatal log lines`);
  const { replicas } = facts;
  if (replicas.silent.length > 0) problems.push(`no final status from ${replicas.silent.join(', ')}`);
  const describe = (s: ReplicaState): string => `${s.node} applied ${s.appliedIndex} digest ${s.stateDigest ?? 'none'}`;
  if (!replicas.isConverged) {
    problems.push(`the replicas never reported the same applied index: ${replicas.states.map(describe).join('; ')}`);
  } else {
    const digests = new Set(replicas.states.map((s) => s.stateDigest ?? ''));
    if (digests.has(''))
      problems.push(`a replica reported no state digest: ${replicas.states.map(describe).join('; ')}`);
    else if (digests.size > 1)
      problems.push(`the replicas' states differ at one applied index: ${replicas.states.map(describe).join('; ')}`);
  }
  return {
    valid: problems.length === 0,
    problems,
    unexpectedExitCount: facts.unexpectedExits.length,
    nemesisErrorCount: facts.nemesisErrors.length,
    fatalLogLineCount: facts.fatalLogLines.length,
    replicas,
  };
}

/** Whether every state was read at one applied index (nothing to compare otherwise). */
export function isAtOneAppliedIndex(states: readonly ReplicaState[]): boolean {
  return states.length > 0 && states.every((s) => s.appliedIndex === states[0]?.appliedIndex);
}
