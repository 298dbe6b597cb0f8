/** What the runner reads from a node's GET /status (docs/OPERATIONS.md); other fields are ignored. */
export interface NodeStatus {
  readonly id: string;
  readonly role: string;
  readonly term: number;
  readonly leader: string | null;
  readonly commitIndex: number;
  readonly appliedIndex: number;
  readonly stateDigest?: string;
  readonly capabilities?: readonly string[];
}

/**
 * The runner's view of a node's admin port, reached directly (not through a proxy: the harness's
 * own control traffic must not be cut by its own partitions). Every call is bounded.
 */
export class NodeAdmin {
  constructor(
    readonly node: string,
    readonly baseUrl: string,
    private readonly requestTimeoutMs: number,
  ) {}

  async status(): Promise<NodeStatus | undefined> {
    try {
      const res = await fetch(`${this.baseUrl}/status`, { signal: AbortSignal.timeout(this.requestTimeoutMs) });
      if (!res.ok) return undefined;
      return (await res.json()) as NodeStatus;
    } catch {
      return undefined;
    }
  }

  /** Whether the node's admin port answers at all (GET /health): its process is up and listening. */
  isListening(): Promise<boolean> {
    return this.answers200('/health');
  }

  isReady(): Promise<boolean> {
    return this.answers200('/ready');
  }

  private async answers200(path: string): Promise<boolean> {
    try {
      const res = await fetch(`${this.baseUrl}${path}`, { signal: AbortSignal.timeout(this.requestTimeoutMs) });
      await res.arrayBuffer();
      return res.status === 200;
    } catch {
      return false;
    }
  }

  /**
   * Shifts the node's cluster clock (debug endpoint; the node must run with --debug-endpoints).
   * Returns whether the node accepted it; 404 means the node has no such call.
   */
  async setClockOffset(offsetMs: number): Promise<{ isAccepted: boolean; status: number | undefined; reason: string }> {
    try {
      const res = await fetch(`${this.baseUrl}/debug/clock-offset`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ offsetMs }),
        signal: AbortSignal.timeout(this.requestTimeoutMs),
      });
      const text = await res.text();
      return { isAccepted: res.ok, status: res.status, reason: text.slice(0, 200) };
    } catch (err) {
      return { isAccepted: false, status: undefined, reason: String((err as Error).message ?? err) };
    }
  }

  /** DELETE /members/ID: removes a member (any node forwards to the leader). */
  async removeMember(id: string, timeoutMs: number): Promise<{ isAccepted: boolean; reason: string }> {
    return this.call('DELETE', `/members/${encodeURIComponent(id)}`, undefined, timeoutMs);
  }

  /** POST /leader/transfer: hands leadership to `id`; answers once it leads (or the node gives up). */
  async transferLeader(id: string, timeoutMs: number): Promise<{ isAccepted: boolean; reason: string }> {
    return this.call('POST', '/leader/transfer', { id }, timeoutMs);
  }

  /** POST /members: adds a member as a learner; answers once it is a voter (or the node gives up). */
  async addMember(id: string, address: string, timeoutMs: number): Promise<{ isAccepted: boolean; reason: string }> {
    return this.call('POST', '/members', { id, address }, timeoutMs);
  }

  private async call(
    method: string,
    path: string,
    body: unknown,
    timeoutMs: number,
  ): Promise<{ isAccepted: boolean; reason: string }> {
    try {
      const res = await fetch(`${this.baseUrl}${path}`, {
        method,
        ...(body === undefined ? {} : { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }),
        signal: AbortSignal.timeout(timeoutMs),
      });
      return { isAccepted: res.ok, reason: (await res.text()).slice(0, 300) };
    } catch (err) {
      return { isAccepted: false, reason: String((err as Error).message ?? err) };
    }
  }
}
