/**
 * The base seed of the CI harness runs: JEPSEN_SEED when set (to replay a failure), otherwise a
 * fresh one each time, so that the runs do not replay the same few faults forever. Printed, so a
 * failing run can be replayed.
 */
export function ciSeedBase(): number {
  const fromEnv = process.env['JEPSEN_SEED'];
  const seed = fromEnv !== undefined && /^\d+$/.test(fromEnv) ? Number(fromEnv) : Math.floor(Math.random() * 1_000_000);
  console.log(`jepsen-like CI runs: seed base ${seed} (replay with JEPSEN_SEED=${seed})`);
  return seed;
}
