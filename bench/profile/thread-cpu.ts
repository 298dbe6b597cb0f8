// `node dist/bench/profile/thread-cpu.js PID SECONDS`: the CPU each thread of a running node spent
// over a window, from /proc/PID/task/*/stat read at its start and end (Linux only). A V8 profile
// shows the main thread alone; a node's garbage-collector workers, libuv's pool (LevelDB reads and
// batch writes) and LevelDB's compaction thread are the rest of its CPU. The main thread is the
// one whose id is the process id; the others are told apart only by their CPU.
import { readdirSync } from 'node:fs';
import { procCpuTicks, procTicksPerSecond } from './proc-stat.js';

/** utime + stime of one thread, in clock ticks; undefined once it has ended. */
function threadTicks(pid: number, tid: string): number | undefined {
  try {
    return procCpuTicks(`/proc/${pid}/task/${tid}/stat`);
  } catch {
    return undefined; // the thread ended
  }
}

function sample(pid: number): Map<string, number> {
  const ticks = new Map<string, number>();
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    const t = threadTicks(pid, tid);
    if (t !== undefined) ticks.set(tid, t);
  }
  return ticks;
}

async function main(): Promise<void> {
  const pid = Number(process.argv[2]);
  const seconds = Number(process.argv[3] ?? 3);
  if (!Number.isInteger(pid) || !(seconds > 0)) {
    process.stderr.write('usage: thread-cpu PID SECONDS\n');
    process.exitCode = 2;
    return;
  }
  const before = sample(pid);
  await new Promise((resolve) => setTimeout(resolve, seconds * 1000));
  const after = sample(pid);
  const spent = [...after]
    .map(([tid, ticks]) => ({ tid, ms: ((ticks - (before.get(tid) ?? 0)) * 1000) / procTicksPerSecond }))
    .filter((t) => t.ms > 0)
    .sort((a, b) => b.ms - a.ms);
  const total = spent.reduce((sum, t) => sum + t.ms, 0);
  process.stdout.write(`pid ${pid}, ${seconds} s: ${total.toFixed(0)} ms of CPU\n`);
  for (const t of spent)
    process.stdout.write(
      `${String(t.ms.toFixed(0)).padStart(7)} ms  ${t.tid === String(pid) ? 'main' : `thread ${t.tid}`}\n`,
    );
}

await main();
