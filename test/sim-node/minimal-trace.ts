/**
 * The part of a run's trace that explains a violation: the start line, every fault and process
 * event (partitions, crashes, power losses, restarts, clock jumps, fatal errors), every queue
 * deletion and creation of the queueChurn profile, every client
 * operation that names one of the violation's messages, and the violations themselves.
 */
import type { NodeSimResult } from './node-simulation.js';

const structural =
  /^\s*\d+ (start|leader|partition|heal|crash|power loss|restart|up |fatal|clock jump|drop rate|created|liveness|drained|admin|VIOLATION)/;

export function minimalTrace(result: NodeSimResult): string[] {
  const bodies = new Set(result.violations.flatMap((v) => v.bodies));
  const mentions = (line: string): boolean => [...bodies].some((body) => new RegExp(`\\b${body}\\b`).test(line));
  return result.trace.filter((line) => structural.test(line) || mentions(line));
}
