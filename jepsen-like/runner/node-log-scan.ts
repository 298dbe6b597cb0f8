import { existsSync, readFileSync } from 'node:fs';

/** pino's level number for fatal. */
const pinoFatalLevel = 60;

/**
 * The lines of a node's log that say the node hit something it could not survive: a pino record
 * at level fatal, or what Node prints for an uncaught exception or a V8 abort (an error's first
 * line, `Uncaught …`, `FATAL ERROR: …`). A node killed by the nemesis writes none of these, so any
 * of them is a bug, whether or not the node went on to exit.
 */
export function fatalLogLines(text: string): string[] {
  const found: string[] = [];
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (line === '') continue;
    if (line.startsWith('{')) {
      const level = pinoLevelOf(line);
      if (level !== undefined && level >= pinoFatalLevel) found.push(line);
      continue;
    }
    if (isUncaughtLine(line)) found.push(line);
  }
  return found;
}

function pinoLevelOf(line: string): number | undefined {
  try {
    const record = JSON.parse(line) as { level?: unknown };
    return typeof record.level === 'number' ? record.level : undefined;
  } catch {
    return undefined;
  }
}

/** `AssertionFailedError: …`, `TypeError [ERR_X]: …`, `Uncaught …`, `FATAL ERROR: …`. */
function isUncaughtLine(line: string): boolean {
  return (
    /^([A-Z][A-Za-z]*)?Error( \[[A-Z_]+\])?: /.test(line) ||
    line.startsWith('Uncaught ') ||
    line.startsWith('FATAL ERROR:')
  );
}

/** Fatal lines of every node's log file, each prefixed with the node. */
export function scanNodeLogs(logs: readonly { node: string; path: string }[]): string[] {
  return logs.flatMap(({ node, path }) =>
    existsSync(path) ? fatalLogLines(readFileSync(path, 'utf8')).map((line) => `${node}: ${line.slice(0, 500)}`) : [],
  );
}
