// CPU time of server processes, read from /proc: the bench charges each system with the CPU of
// every process it started and of their descendants (a RabbitMQ node is a shell, epmd and a BEAM
// VM; a raftq node is one Node.js process).
import { readdirSync, readFileSync } from 'node:fs';

interface ProcStat {
  readonly pid: number;
  readonly parentPid: number;
  /** utime + stime, in clock ticks. */
  readonly cpuTicks: number;
}

/** Linux's USER_HZ: /proc/<pid>/stat counts CPU in these ticks. It is 100 on every Linux ABI Node runs on. */
export const clockTicksPerSecond = 100;

/**
 * Parses one /proc/<pid>/stat line. The command name (field 2) is in parentheses and may itself
 * contain spaces and parentheses, so fields are counted from the last ')'.
 */
export function parseProcStat(line: string): ProcStat | null {
  const close = line.lastIndexOf(')');
  if (close < 0) return null;
  const pid = Number(line.slice(0, line.indexOf(' ')));
  // After ')' come: state(3) ppid(4) pgrp(5) session(6) tty(7) tpgid(8) flags(9) minflt(10)
  // cminflt(11) majflt(12) cmajflt(13) utime(14) stime(15).
  const rest = line.slice(close + 2).split(' ');
  const parentPid = Number(rest[1]);
  const utime = Number(rest[11]);
  const stime = Number(rest[12]);
  if (![pid, parentPid, utime, stime].every(Number.isFinite)) return null;
  return { pid, parentPid, cpuTicks: utime + stime };
}

function readAllProcStats(): ProcStat[] {
  const stats: ProcStat[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = parseProcStat(readFileSync(`/proc/${entry}/stat`, 'latin1'));
      if (stat !== null) stats.push(stat);
    } catch {
      // The process ended between readdir and read: it no longer uses CPU.
    }
  }
  return stats;
}

/** CPU seconds used so far by the trees rooted at `rootPids` (roots that ended count as 0). */
export function processTreeCpuSeconds(
  rootPids: readonly number[],
  stats: readonly ProcStat[] = readAllProcStats(),
): number {
  const children = new Map<number, number[]>();
  const ticksByPid = new Map<number, number>();
  for (const stat of stats) {
    ticksByPid.set(stat.pid, stat.cpuTicks);
    const siblings = children.get(stat.parentPid) ?? [];
    siblings.push(stat.pid);
    children.set(stat.parentPid, siblings);
  }
  const seen = new Set<number>();
  const pending = [...rootPids];
  let ticks = 0;
  while (pending.length > 0) {
    const pid = pending.pop() as number;
    if (seen.has(pid)) continue;
    seen.add(pid);
    ticks += ticksByPid.get(pid) ?? 0;
    pending.push(...(children.get(pid) ?? []));
  }
  return ticks / clockTicksPerSecond;
}
