import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Integration tests start real processes and bind ports: keep files in separate forks and
    // bound their parallelism so two cores are not oversubscribed.
    pool: 'forks',
    maxWorkers: 2,
    testTimeout: 60_000,
    // The JSON report is what .ci/run derives its 'N passed, M failed' line from.
    reporters: ['default', 'json'],
    outputFile: { json: '.vitest-report.json' },
    hookTimeout: 120_000,
  },
});
