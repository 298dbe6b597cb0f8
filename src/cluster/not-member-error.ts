/**
 * The error of a node whose own configuration does not include it: one started with --join that
 * no member has added yet (or one that applied its own removal). Its state holds nothing of the
 * cluster's and no leader will talk to it, so it answers at once instead of waiting for one. The
 * request may be retried unchanged (through a member, or here once the node was added).
 */
import { RetryableError } from '../base/errors.js';

export class NotMemberError extends RetryableError {
  readonly code = 'NotMember';
  constructor(readonly nodeId: string) {
    super(
      `Node ${nodeId} is not yet a member of the cluster (a member adds it with \`raftq members add ${nodeId}=HOST:PORT\`); until then, send requests to a member`,
    );
  }
}
