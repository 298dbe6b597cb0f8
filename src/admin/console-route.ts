/**
 * The web console's static files (docs/OPERATIONS.md, "The console"): GET / is its page, GET
 * /console/FILE its script and style. They sit in src/admin/console/, which the build copies next to
 * this module in dist/ (scripts/copy-console.mjs). The files hold no data and no secret, so they
 * are served without the admin token; the page asks for the token and sends it on its API calls.
 */
import { readFile } from 'node:fs/promises';
import type { ServerResponse } from 'node:http';

const consoleFolder = new URL('./console/', import.meta.url);

/** The files served, by request path, with their content types; nothing else is read from disk. */
const consoleFiles: ReadonlyMap<string, { readonly file: string; readonly contentType: string }> = new Map([
  ['/', { file: 'index.html', contentType: 'text/html; charset=utf-8' }],
  ['/console/console.js', { file: 'console.js', contentType: 'text/javascript; charset=utf-8' }],
  ['/console/dom.js', { file: 'dom.js', contentType: 'text/javascript; charset=utf-8' }],
  ['/console/console.css', { file: 'console.css', contentType: 'text/css; charset=utf-8' }],
]);

/**
 * Everything the page loads comes from this origin, and no inline script runs: a message body that
 * slipped past the escaping still could not execute.
 */
const contentSecurityPolicy =
  "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

export function isConsolePath(path: string): boolean {
  return consoleFiles.has(path);
}

/** Answers the request and returns true when `path` is one of the console's files. */
export async function serveConsole(method: string, path: string, response: ServerResponse): Promise<boolean> {
  const entry = consoleFiles.get(path);
  if (entry === undefined || (method !== 'GET' && method !== 'HEAD')) return false;
  const content = await readFile(new URL(entry.file, consoleFolder));
  response.writeHead(200, {
    'content-type': entry.contentType,
    'content-length': content.byteLength,
    'content-security-policy': contentSecurityPolicy,
    'x-content-type-options': 'nosniff',
    'referrer-policy': 'no-referrer',
    'cache-control': 'no-cache',
  });
  response.end(method === 'HEAD' ? undefined : content);
  return true;
}
