import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { allLimitGroups } from '../../src/base/limits.js';
import { renderLimitsDoc } from '../../scripts/limits-doc.js';

describe('docs/LIMITS.md', () => {
  it('is what src/base/limits.ts generates (run `npm run limits:doc` after changing a limit)', () => {
    const onDisk = readFileSync(new URL('../../docs/LIMITS.md', import.meta.url), 'utf8');
    expect(onDisk).toBe(renderLimitsDoc());
  });

  it('every limit has a unit, a reason and a non-negative value', () => {
    for (const limits of Object.values(allLimitGroups)) {
      for (const [name, limit] of Object.entries(limits)) {
        expect(limit.unit, name).not.toBe('');
        expect(limit.reason.length, name).toBeGreaterThan(10);
        expect(limit.value >= 0, name).toBe(true);
      }
    }
  });
});
