/**
 * raftq/testing: a real raftq node inside a test process, on a clock the test moves.
 *
 *   const node = await startTestNode();
 *   await node.client.send(new CreateQueueCommand({ QueueName: 'orders' }));
 *   await node.advanceClock(30_000); // a 30 s visibility timeout lapses now
 *   await node.stop();
 */
export { startTestNode } from './test-node.js';
export type { TestNode, TestNodeOptions } from './test-node.js';
