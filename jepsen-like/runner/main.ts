#!/usr/bin/env node
import { parseRunOptions, RunUsageError } from './run-options.js';
import { ClusterCliMissingError, runJepsen } from './run-jepsen.js';

/**
 * `npm run jepsen -- [options]`. Exit status: 0 valid, 1 invalid, 2 unknown or a broken run,
 * 3 skipped (the cluster CLI is not built), 64 bad usage.
 */
async function main(): Promise<number> {
  // The SDK warns once per process that its future versions need Node 22; the harness runs on the
  // project's Node 20 on purpose, so the warning is noise in every run's output.
  process.env['AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED'] ??= 'true';
  let options;
  try {
    options = parseRunOptions(process.argv.slice(2), () => Math.floor(Math.random() * 2 ** 31));
  } catch (err) {
    if (err instanceof RunUsageError || (err as { code?: string }).code?.startsWith('ERR_PARSE_ARGS')) {
      console.error((err as Error).message);
      return 64;
    }
    throw err;
  }
  try {
    const outcome = await runJepsen(options, (line) => {
      if (!options.isQuiet) console.log(line);
    });
    console.log(outcome.verdictLine);
    return outcome.results.valid === true ? 0 : outcome.results.valid === false ? 1 : 2;
  } catch (err) {
    if (err instanceof ClusterCliMissingError) {
      console.log(err.message);
      return 3;
    }
    throw err;
  }
}

process.exitCode = await main();
