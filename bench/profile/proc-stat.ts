// CPU a Linux process or thread has used, from its /proc stat line: utime + stime, in clock ticks
// (fields 14 and 15, counted after the parenthesised name, which may itself hold spaces).
import { readFileSync } from 'node:fs';

/** Clock ticks per second of /proc's CPU fields (USER_HZ). */
export const procTicksPerSecond = 100;

/** utime + stime of `/proc/PID/stat` or `/proc/PID/task/TID/stat`; throws if it is gone. */
export function procCpuTicks(statPath: string): number {
  const stat = readFileSync(statPath, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return Number(fields[11]) + Number(fields[12]);
}
