// What the simulators' command lines (sim.ts, sim-node.ts) share: a usage error that exits 2 with
// the usage, and the parsing of a non-negative integer option.

export interface SimCli {
  /** Prints `message` and the usage, then exits 2. */
  fail(message: string): never;
  /** `text` as a non-negative integer (`fallback` when absent); a usage error otherwise. */
  nonNegativeInteger(text: string | undefined, name: string, fallback: number): number;
}

export function simCli(commandName: string, usage: string): SimCli {
  const fail = (message: string): never => {
    console.error(`${commandName}: ${message}\n${usage}`);
    process.exit(2);
  };
  return {
    fail,
    nonNegativeInteger(text, name, fallback) {
      if (text === undefined) return fallback;
      const value = Number(text);
      if (!Number.isSafeInteger(value) || value < 0) fail(`${name} must be a non-negative integer, got '${text}'`);
      return value;
    },
  };
}
