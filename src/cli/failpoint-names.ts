/** The failpoints `raftq serve --test-failpoint` knows (serve-failpoints.ts says what each one breaks). */
export const failpointNames = ['drop-acked-send', 'fifo-reorder', 'stale-read', 'node-assert'] as const;
export type FailpointName = (typeof failpointNames)[number];

export function isFailpointName(name: string): name is FailpointName {
  return (failpointNames as readonly string[]).includes(name);
}
