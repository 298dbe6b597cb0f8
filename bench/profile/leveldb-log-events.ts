// The background work LevelDB records in a database's LOG file, as timed events: memtable flushes
// ("Level-0 table #N: started" … "#N: … bytes OK") and compactions ("Compacting a@L + b@L+1
// files" … "compacted to: …"), plus manual compactions asked for by the node (one instant each).
// Both run on LevelDB's own thread: on a machine whose cores are busy they take CPU from the
// node's main thread and the load generator, which op-timeline.ts shows beside the latencies.
//
// LevelDB stamps lines in local time ("2026/12/07-01:44:47.101606"), read here as local time too.

export type LevelDbEventKind = 'flush' | 'compaction' | 'manual-compaction';

export interface LevelDbEvent {
  readonly kind: LevelDbEventKind;
  readonly startEpochMs: number;
  readonly endEpochMs: number;
  /** The LOG's own words for it: "#26: 5080319 bytes", "1@1 + 5@2 files => 9457713 bytes". */
  readonly detail: string;
}

const stampedLine = /^(\d{4})\/(\d{2})\/(\d{2})-(\d{2}):(\d{2}):(\d{2})\.(\d{6}) \S+ (.*)$/;

function epochMsOf(match: RegExpExecArray): number {
  const [, year, month, day, hour, minute, second, micros] = match.map(Number) as number[];
  return (
    new Date(year as number, (month as number) - 1, day, hour, minute, second).getTime() + (micros as number) / 1000
  );
}

export function parseLevelDbLog(text: string): LevelDbEvent[] {
  const events: LevelDbEvent[] = [];
  const flushStarts = new Map<string, number>();
  let compaction: { startEpochMs: number; files: string } | undefined;
  for (const line of text.split('\n')) {
    const match = stampedLine.exec(line);
    if (match === null) continue;
    const atMs = epochMsOf(match);
    const message = match[8] as string;
    let m: RegExpExecArray | null;
    if ((m = /^Level-0 table #(\d+): started$/.exec(message)) !== null) flushStarts.set(m[1] as string, atMs);
    else if ((m = /^Level-0 table #(\d+): (\d+) bytes/.exec(message)) !== null) {
      const startEpochMs = flushStarts.get(m[1] as string);
      flushStarts.delete(m[1] as string);
      if (startEpochMs !== undefined)
        events.push({ kind: 'flush', startEpochMs, endEpochMs: atMs, detail: `#${m[1]}: ${m[2]} bytes` });
    } else if ((m = /^Compacting (.*) files$/.exec(message)) !== null)
      compaction = { startEpochMs: atMs, files: m[1] as string };
    else if ((m = /^Compacted .* files => (\d+) bytes$/.exec(message)) !== null && compaction !== undefined) {
      events.push({
        kind: 'compaction',
        startEpochMs: compaction.startEpochMs,
        endEpochMs: atMs,
        detail: `${compaction.files} files => ${m[1]} bytes`,
      });
      compaction = undefined;
    } else if ((m = /^Manual compaction at level-(\d+)/.exec(message)) !== null)
      events.push({ kind: 'manual-compaction', startEpochMs: atMs, endEpochMs: atMs, detail: `level ${m[1]}` });
  }
  return events.sort((a, b) => a.startEpochMs - b.startEpochMs);
}
