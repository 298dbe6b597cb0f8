// The command line of the profile summaries: one profile file, `--top N`, and flags, in any order.
import { existsSync } from 'node:fs';

export interface ProfileFileArgs {
  readonly file: string;
  readonly top: number;
  readonly flags: readonly string[];
}

/**
 * The file is the one argument that is neither a flag nor --top's number. Undefined, after
 * printing `usage` (and why) and setting the exit code, when there is no such file or N is not a
 * positive integer.
 */
export function parseProfileFileArgs(
  args: readonly string[],
  usage: string,
  defaultTop: number,
): ProfileFileArgs | undefined {
  const topAt = args.indexOf('--top');
  const top = topAt >= 0 ? Number(args[topAt + 1]) : defaultTop;
  const file = args.find((arg, i) => !arg.startsWith('--') && (topAt < 0 || i !== topAt + 1));
  if (file === undefined || !existsSync(file) || !(Number.isInteger(top) && top > 0)) {
    process.stderr.write(`usage: ${usage}\n`);
    if (file !== undefined && !existsSync(file)) process.stderr.write(`no such file: ${file}\n`);
    process.exitCode = 2;
    return undefined;
  }
  return { file, top, flags: args.filter((arg) => arg.startsWith('--') && arg !== '--top') };
}
