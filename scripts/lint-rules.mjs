// The project's own lint rules: determinism of the core and the one-way import graph (DESIGN.md §1).
// Kept as plain functions over file text so that a test can feed them broken code.

/** Which src/ layers each layer may import from. */
export const allowedImports = {
  base: [],
  gen: [],
  storage: ['base'],
  raft: ['base'],
  queue: ['base', 'storage'],
  cluster: ['base', 'raft', 'storage', 'gen'],
  sqs: ['base', 'storage', 'queue', 'cluster'],
  admin: ['base', 'storage', 'raft', 'cluster', 'queue', 'sqs'],
  client: ['base'],
  cli: ['base', 'storage', 'raft', 'cluster', 'queue', 'sqs', 'admin', 'client', 'gen'],
};

/** Layers that must be deterministic: time, randomness, network and disk come in as interfaces. */
const deterministicLayers = new Set(['raft', 'storage', 'queue']);
/** The one file of a deterministic layer that may do I/O: the LevelDB engine. */
const ioExemptFiles = new Set(['src/storage/level-engine.ts']);

const nondeterministicCalls = [
  [/\bDate\.now\s*\(/, 'Date.now(): read time from an injected Clock'],
  [/\bnew Date\s*\(\s*\)/, 'new Date(): read time from an injected Clock'],
  [/\bMath\.random\s*\(/, 'Math.random(): draw from an injected Prng'],
  [/\b(setTimeout|setInterval|setImmediate|queueMicrotask)\s*\(/, 'timers: the runtime drives time'],
  [/\bperformance\.now\s*\(/, 'performance.now(): read time from an injected Clock'],
  [/\bprocess\.hrtime\b/, 'process.hrtime: read time from an injected Clock'],
  [/\b(randomUUID|randomBytes|randomInt|getRandomValues)\s*\(/, 'crypto randomness: draw from an injected Prng'],
];
/** node: modules a deterministic layer may use: pure computation, no I/O. */
const pureNodeModules = new Set(['node:crypto', 'node:buffer', 'node:util']);

function stripComments(text) {
  return text.replace(/\/\*[\s\S]*?\*\//g, (m) => m.replace(/[^\n]/g, ' ')).replace(/(^|[^:'"`])\/\/.*$/gm, '$1');
}

function importSpecifiers(text) {
  const specs = [];
  const re = /(?:^|\n)\s*(?:import|export)\b[^'"`;]*?from\s*['"]([^'"]+)['"]|\bimport\s*\(\s*['"]([^'"]+)['"]\s*\)|(?:^|\n)\s*import\s*['"]([^'"]+)['"]/g;
  for (let m; (m = re.exec(text)); ) specs.push(m[1] ?? m[2] ?? m[3]);
  return specs;
}

function layerOf(relPath) {
  const m = /^src\/([^/]+)\//.exec(relPath);
  return m ? m[1] : null;
}

function resolveRelative(fromRel, spec) {
  const parts = fromRel.split('/').slice(0, -1);
  for (const seg of spec.split('/')) {
    if (seg === '..') parts.pop();
    else if (seg !== '.') parts.push(seg);
  }
  return parts.join('/');
}

/** Returns a list of `path:line: message` problems for one file under src/. */
export function lintFile(relPath, text) {
  const problems = [];
  const layer = layerOf(relPath);
  if (layer === null) return problems;
  const code = stripComments(text);
  const lineOf = (index) => code.slice(0, index).split('\n').length;

  const allowed = allowedImports[layer];
  if (allowed === undefined) problems.push(`${relPath}:1: unknown layer src/${layer}: add it to allowedImports in scripts/lint-rules.mjs`);
  for (const spec of importSpecifiers(code)) {
    if (spec.startsWith('.')) {
      const target = layerOf(resolveRelative(relPath, spec));
      if (target !== null && target !== layer && allowed && !allowed.includes(target)) {
        problems.push(`${relPath}:1: src/${layer} may not import from src/${target} (${spec}); imports flow one way (DESIGN.md §1)`);
      }
    } else if (deterministicLayers.has(layer) && !ioExemptFiles.has(relPath)) {
      if (spec.startsWith('node:') && !pureNodeModules.has(spec)) {
        problems.push(`${relPath}:1: ${spec} is I/O; src/${layer} must stay deterministic (inject it)`);
      }
      if (/^(@grpc|classic-level|undici|pino|prom-client)/.test(spec)) {
        problems.push(`${relPath}:1: ${spec} is I/O; src/${layer} must stay deterministic (inject it)`);
      }
    }
  }
  if (deterministicLayers.has(layer) && !ioExemptFiles.has(relPath)) {
    for (const [pattern, why] of nondeterministicCalls) {
      const re = new RegExp(pattern.source, 'g');
      for (let m; (m = re.exec(code)); ) problems.push(`${relPath}:${lineOf(m.index)}: ${why}`);
    }
  }
  if (layer === 'raft') {
    const re = /\basync\b|\bawait\b|\bPromise\b/g;
    for (let m; (m = re.exec(code)); ) problems.push(`${relPath}:${lineOf(m.index)}: the Raft core is synchronous: no ${m[0]}`);
  }
  return problems;
}
