// Copies the web console's static files (src/admin/console/) next to the compiled admin server in
// dist/src/admin/console/, where console-route.ts reads them; tsc copies only what it compiles.
import { cpSync, rmSync } from 'node:fs';

const root = new URL('..', import.meta.url);
const from = new URL('src/admin/console/', root);
const to = new URL('dist/src/admin/console/', root);
rmSync(to, { recursive: true, force: true });
cpSync(from, to, { recursive: true });
