import { writeFileSync } from 'node:fs';
import { renderLimitsDoc } from './limits-doc.js';

const target = new URL('../../docs/LIMITS.md', import.meta.url);
writeFileSync(target, renderLimitsDoc());
console.log(`wrote ${target.pathname}`);
