/**
 * The flags of the `node` process that runs `raftq serve`, given before the script by every launcher
 * the repository carries (npm start, `raftq cluster up`, the systemd unit, the container image, the
 * jepsen-like harness, the benchmarks). V8 reads them only when the process starts, so a node cannot
 * set them for itself; `test/deploy/serve-node-flags.test.ts` holds the launchers to this list.
 *
 * --max-semi-space-size=64: V8's young generation may grow to two 64 MiB semi-spaces instead of
 * Node's 16. A node allocates per request and per apply step objects that die within milliseconds;
 * with the small young generation more of them are collected while still alive and promoted, and the
 * old generation pays to collect them again. A consuming node ran about 7 % faster at 8 % less CPU
 * per message with it (docs/BENCHMARKS.md, "A 64 MiB semi-space in every launcher"). The cost is up
 * to 96 MiB more resident memory per node under load.
 */
export const serveNodeFlags: readonly string[] = ['--max-semi-space-size=64'];

/** The name of a `--flag=value` or `--flag value` argument, `--flag` alone otherwise. */
function flagName(argument: string): string {
  const equals = argument.indexOf('=');
  return equals < 0 ? argument : argument.slice(0, equals);
}

/**
 * Which of serveNodeFlags this process was started without, by name (an operator's own value
 * counts as given): from node's own arguments and NODE_OPTIONS. V8 accepts underscores for dashes.
 */
export function missingServeNodeFlags(execArgv: readonly string[], nodeOptions: string | undefined): string[] {
  const given = new Set(
    [...execArgv, ...(nodeOptions ?? '').split(/\s+/)].map((argument) => flagName(argument).replaceAll('_', '-')),
  );
  return serveNodeFlags.filter((flag) => !given.has(flagName(flag)));
}
