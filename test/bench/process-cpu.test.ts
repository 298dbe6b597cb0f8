import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { clockTicksPerSecond, parseProcStat, processTreeCpuSeconds } from '../../bench/stats/process-cpu.js';

describe('server CPU from /proc', () => {
  it('parses a stat line whose command name holds spaces and parentheses', () => {
    const line = '4242 (beam.smp (x) y) S 4200 4242 4242 0 -1 4194560 100 0 0 0 250 75 0 0 20 0 30 0 1000 0 0';
    expect(parseProcStat(line)).toEqual({ pid: 4242, parentPid: 4200, cpuTicks: 325 });
  });

  it('refuses a line that is not a stat line', () => {
    expect(parseProcStat('garbage')).toBeNull();
  });

  it('charges a root with the CPU of every descendant and of nothing else', () => {
    const stats = [
      { pid: 10, parentPid: 1, cpuTicks: 100 },
      { pid: 11, parentPid: 10, cpuTicks: 50 },
      { pid: 12, parentPid: 11, cpuTicks: 25 },
      { pid: 20, parentPid: 1, cpuTicks: 1_000 },
    ];
    expect(processTreeCpuSeconds([10], stats)).toBeCloseTo(175 / clockTicksPerSecond);
    expect(processTreeCpuSeconds([10, 20], stats)).toBeCloseTo(1_175 / clockTicksPerSecond);
    expect(processTreeCpuSeconds([11, 12], stats)).toBeCloseTo(75 / clockTicksPerSecond);
    expect(processTreeCpuSeconds([99], stats)).toBe(0);
  });

  it('sees the CPU a real child process burns', async () => {
    const child = spawn(process.execPath, ['-e', 'const end = Date.now() + 300; while (Date.now() < end);'], {
      stdio: 'ignore',
    });
    const pid = child.pid as number;
    let seconds = 0;
    // Read while the child still runs: a process that has exited is gone from /proc.
    child.once('spawn', () => undefined);
    while (child.exitCode === null) {
      seconds = Math.max(seconds, processTreeCpuSeconds([pid]));
      await new Promise((resolve) => setImmediate(resolve));
    }
    expect(seconds).toBeGreaterThan(0);
  });
});
