// The command-line reading the bench commands share: flags, their values, and lists of numbers and names.

export class BenchUsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'BenchUsageError';
  }
}

/** One flag of a bench command line, as `--flag value` or `--flag=value`. */
export interface BenchFlag {
  /** The argument as written, for "unknown option" messages. */
  readonly arg: string;
  /** The flag without an inline `=value`. */
  readonly flag: string;
  /** The flag's value: the inline one, else the next argument (which the walk then skips). */
  value(): string;
}

/** Walks `argv` one flag at a time; a flag that takes a value calls value() before the walk moves on. */
export function* benchFlags(argv: readonly string[]): Generator<BenchFlag> {
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] as string;
    const eq = arg.indexOf('=');
    const [flag, inline] = eq >= 0 ? [arg.slice(0, eq), arg.slice(eq + 1)] : [arg, undefined];
    yield {
      arg,
      flag,
      value: () => {
        const v = inline ?? argv[++i];
        if (v === undefined) throw new BenchUsageError(`${flag} needs a value`);
        return v;
      },
    };
  }
}

/** A comma-separated list of positive integers, e.g. `--concurrency 1,8,32`. */
export function parsePositiveIntegers(value: string, flag: string): number[] {
  const numbers = value.split(',').map(Number);
  if (numbers.some((n) => !Number.isInteger(n) || n <= 0))
    throw new BenchUsageError(`${flag}: expected positive integers, got ${value}`);
  return numbers;
}

/** A comma-separated list of workload names, each one of `known`. */
export function parseWorkloadNames<Name extends string>(value: string, known: readonly Name[]): Name[] {
  const names = value.split(',').map((w) => w.trim()) as Name[];
  const unknown = names.filter((w) => !known.includes(w));
  if (unknown.length > 0)
    throw new BenchUsageError(`unknown workload(s): ${unknown.join(', ')} (known: ${known.join(', ')})`);
  return names;
}
