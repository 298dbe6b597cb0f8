// The project's own lint rules: determinism of the core, the one-way import graph (docs/ARCHITECTURE.md),
// and no path that leaves the repository.
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
  forwarding: ['base', 'storage', 'queue', 'cluster', 'gen'],
  admin: ['base', 'storage', 'raft', 'cluster', 'queue', 'sqs'],
  client: ['base'],
  cli: ['base', 'storage', 'raft', 'cluster', 'queue', 'sqs', 'admin', 'client', 'gen', 'forwarding'],
  testing: ['base', 'storage', 'cluster', 'queue', 'sqs'],
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
/**
 * The whole-node simulator (test/sim-node) runs on virtual time: its own code reads no host clock,
 * sets no host timer and draws no host randomness (the node code it runs gets virtual ones).
 * virtual-time.ts is the one file that holds the host's timers, to step the run.
 */
const simulatorFiles = /^test\/sim-node\/(?!.*\.test\.ts$).*\.ts$/;
const simulatorHostTimeFiles = new Set(['test/sim-node/virtual-time.ts']);

/**
 * Layers the whole-node simulator runs (test/sim-node): they take time from the node's injected
 * Scheduler (NodeRuntime.scheduler: after, every, monotonicMs) or its injected Clock, never from the
 * host, so that a simulated node runs on virtual time. The Scheduler's production implementation
 * (src/base/scheduler.ts) is where the host's timers live.
 */
const scheduledLayers = new Set(['cluster', 'forwarding']);
/** The gRPC transport: host I/O that the simulator replaces whole (NodeRuntime.transport); gRPC deadlines are host wall-clock times. */
const hostTransportFiles = new Set(['src/cluster/grpc-transport.ts', 'src/cluster/peer-link.ts']);
const hostTimeCalls = [
  [/\bDate\.now\s*\(/, "Date.now(): take time from the node's Scheduler (monotonicMs) or its injected Clock"],
  [/\b(setTimeout|setInterval|setImmediate)\s*\(/, "host timers: use the node's Scheduler (after, every, immediate)"],
  [/\bperformance\.now\s*\(/, "performance.now(): use the node's Scheduler (monotonicMs)"],
];

/** node: modules a deterministic layer may use: pure computation, no I/O. */
const pureNodeModules = new Set(['node:crypto', 'node:buffer', 'node:util']);

function stripComments(text) {
  return text.replace(/\/\*[\s\S]*?\*\//g, (m) => m.replace(/[^\n]/g, ' ')).replace(/(^|[^:'"`])\/\/.*$/gm, '$1');
}

function importSpecifiers(text) {
  const specs = [];
  const re =
    /(?:^|\n)\s*(?:import|export)\b[^'"`;]*?from\s*['"]([^'"]+)['"]|\bimport\s*\(\s*['"]([^'"]+)['"]\s*\)|(?:^|\n)\s*import\s*['"]([^'"]+)['"]/g;
  for (let m; (m = re.exec(text));) specs.push(m[1] ?? m[2] ?? m[3]);
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

/**
 * Returns a list of `path:line: message` problems for one file of the repository: paths that leave
 * it anywhere, and under src/ the determinism and import rules.
 */
export function lintFile(relPath, text) {
  const problems = lintPathsLeavingRepository(relPath, text);
  if (simulatorFiles.test(relPath) && !simulatorHostTimeFiles.has(relPath)) {
    const code = stripComments(text);
    for (const [pattern, why] of nondeterministicCalls) {
      const re = new RegExp(pattern.source, 'g');
      for (let m; (m = re.exec(code));)
        problems.push(
          `${relPath}:${code.slice(0, m.index).split('\n').length}: ${why.replace(/an injected (Clock|Prng)|the runtime/, (w) => (w === 'the runtime' ? 'the VirtualTime' : w.endsWith('Prng') ? "the run's SeededPrng" : 'the VirtualTime'))}`,
        );
    }
  }
  const layer = layerOf(relPath);
  if (layer === null || !relPath.endsWith('.ts')) return problems;
  const code = stripComments(text);
  const lineOf = (index) => code.slice(0, index).split('\n').length;

  const allowed = allowedImports[layer];
  if (allowed === undefined)
    problems.push(`${relPath}:1: unknown layer src/${layer}: add it to allowedImports in scripts/lint-rules.mjs`);
  for (const spec of importSpecifiers(code)) {
    if (spec.startsWith('.')) {
      const target = layerOf(resolveRelative(relPath, spec));
      if (target !== null && target !== layer && allowed && !allowed.includes(target)) {
        problems.push(
          `${relPath}:1: src/${layer} may not import from src/${target} (${spec}); imports flow one way (docs/ARCHITECTURE.md)`,
        );
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
      for (let m; (m = re.exec(code));) problems.push(`${relPath}:${lineOf(m.index)}: ${why}`);
    }
  }
  if (scheduledLayers.has(layer) && !hostTransportFiles.has(relPath)) {
    for (const [pattern, why] of hostTimeCalls) {
      const re = new RegExp(pattern.source, 'g');
      for (let m; (m = re.exec(code));) problems.push(`${relPath}:${lineOf(m.index)}: ${why}`);
    }
  }
  for (const m of code.matchAll(/\bassert\(/g)) {
    const message = callArguments(code, m.index + m[0].length - 1)[1];
    if (message !== undefined && message.startsWith('`') && message.includes('${'))
      problems.push(
        `${relPath}:${lineOf(m.index)}: an assert message with values in it is built on every call: pass () => \`…\` instead`,
      );
  }
  if (layer === 'raft') {
    const re = /\basync\b|\bawait\b|\bPromise\b/g;
    for (let m; (m = re.exec(code));)
      problems.push(`${relPath}:${lineOf(m.index)}: the Raft core is synchronous: no ${m[0]}`);
  }
  return problems;
}

// ---- Paths that leave the repository ----
// The project depends on nothing outside its own tree (a fresh clone tests green by itself), so no
// source file may name a path that climbs above the repository root: a relative literal resolved
// from the folder the file runs in ('../../../x' from test/clients/; TypeScript outside test/ runs
// from dist/), or a path built from the root or the file's folder: join(root, '..', 'x'),
// `${root}/../x`, os.path.join(os.path.dirname(__file__), '..', …).

const stringLiteral = /'((?:[^'\\\n]|\\.)*)'|"((?:[^"\\\n]|\\.)*)"|`((?:[^`\\]|\\.)*)`/;
/** Expressions that stand for the repository root, and for the folder of the file itself. */
const rootExpression = /^(?:[\w.]*\.)?\w*root\w*(?:\(\))?$/i;
const fileFolderExpression =
  /^(?:__dirname|import\.meta\.dirname|(?:path\.)?dirname\(\s*fileURLToPath\(\s*import\.meta\.url\s*\)\s*\)|os\.path\.dirname\(\s*(?:os\.path\.(?:abspath|realpath)\(\s*)?__file__\s*\)?\s*\))$/;

function isRelativePath(value) {
  return value === '.' || value === '..' || value.startsWith('./') || value.startsWith('../');
}

/** Depth below the root after walking `segments` from `depth`, or -1 as soon as it climbs above it. */
function walkSegments(depth, segments) {
  for (const segment of segments) {
    if (segment === '..') depth--;
    else if (segment !== '.' && segment !== '') depth++;
    if (depth < 0) return -1;
  }
  return depth;
}

function stripScriptComments(relPath, text) {
  if (/\.(py|sh|bash)$/.test(relPath) || !/\.[cm]?[jt]s$/.test(relPath)) return text.replace(/^[ \t]*#.*$/gm, '');
  return stripComments(text);
}

/** The comma-separated arguments of the call whose '(' is at `open`, as source text. */
function callArguments(code, open) {
  const args = [];
  let depth = 0;
  let start = open + 1;
  for (let i = open; i < code.length; i++) {
    const c = code[i];
    if (c === "'" || c === '"' || c === '`') {
      const end = code.indexOf(c, i + 1);
      if (end < 0) return args;
      i = end;
    } else if (c === '(' || c === '[' || c === '{') depth++;
    else if (c === ')' || c === ']' || c === '}') {
      depth--;
      if (depth === 0) {
        args.push(code.slice(start, i).trim());
        return args;
      }
    } else if (c === ',' && depth === 1) {
      args.push(code.slice(start, i).trim());
      start = i + 1;
    }
  }
  return args;
}

/** Returns a list of `path:line: message` problems: path literals of `relPath` that leave the repository. */
export function lintPathsLeavingRepository(relPath, text) {
  const problems = [];
  const code = stripScriptComments(relPath, text);
  const lineOf = (index) => code.slice(0, index).split('\n').length;
  // TypeScript outside test/ runs as tsc emitted it, from dist/<its folder>: its relative paths count from there.
  const isEmitted =
    /^(src|scripts|bench|jepsen-like|examples)\//.test(relPath) &&
    relPath.endsWith('.ts') &&
    !relPath.endsWith('.d.ts');
  const fileDepth = relPath.split('/').length - (isEmitted ? 0 : 1);
  const fileFolder = `${isEmitted ? 'dist/' : ''}${relPath.split('/').slice(0, -1).join('/')}/`;
  const report = (line, what, from) =>
    problems.push(
      `${relPath}:${line}: ${what} leaves the repository (counted from ${from}): ship what it names inside the repository`,
    );
  const baseName = (base) => (rootExpression.test(base) ? 'the repository root' : fileFolder);

  // Each literal is checked, then masked as '«n»' (its newlines kept) so that the call search
  // below sees only code, and reads a literal argument back by its number.
  const values = [];
  const masked = code.replace(new RegExp(stringLiteral.source, 'g'), (whole, single, double, template, index) => {
    const value = single ?? double ?? template;
    checkLiteral(value, template !== undefined, index);
    values.push(value);
    return `'«${values.length - 1}»${whole.replace(/[^\n]/g, '')}'`;
  });
  const lineOfMasked = (index) => masked.slice(0, index).split('\n').length;

  function checkLiteral(value, isTemplate, index) {
    if (isTemplate) {
      // A template that starts from the root or the file's folder: `${root}/../x`.
      const t = /^\$\{([^}]*)\}(\/.*)?$/.exec(value);
      if (t && t[2] !== undefined && !t[2].includes('${')) {
        const base = t[1].trim();
        const depth = rootExpression.test(base) ? 0 : fileFolderExpression.test(base) ? fileDepth : undefined;
        if (depth !== undefined && walkSegments(depth, t[2].split('/')) < 0)
          report(lineOf(index), `\`${value}\``, baseName(base));
        return;
      }
      if (value.includes('${')) return;
    }
    if (isRelativePath(value) && walkSegments(fileDepth, value.split('/')) < 0)
      report(lineOf(index), `'${value}'`, fileFolder);
  }

  // join(base, 'a', '..', …), resolve(…), path.join(…), os.path.join(…) from the root or the file's folder.
  const call = /\b(?:join|resolve)\s*\(/g;
  for (let m; (m = call.exec(masked));) {
    const [base, ...rest] = callArguments(masked, m.index + m[0].length - 1);
    if (base === undefined) continue;
    let depth = rootExpression.test(base) ? 0 : fileFolderExpression.test(base) ? fileDepth : undefined;
    if (depth === undefined) continue;
    for (const arg of rest) {
      const literal = /^'«(\d+)»\n*'$/.exec(arg);
      if (literal === null) break; // a computed segment: where it leads is not known here
      const value = values[Number(literal[1])];
      depth = walkSegments(depth, value.split('/'));
      if (depth < 0) {
        report(lineOfMasked(m.index), `${m[0]}${base}, …, '${value}')`, baseName(base));
        break;
      }
    }
  }
  return problems;
}

// ---- References to documents and to traps ----
// Comments send the reader to documents ("docs/architecture/queue.md, \"Key layout\"") and to the
// numbered traps of docs/TRAPS.md ("trap 4"). A reference the repository cannot resolve is a dead
// end, so: a comment that names a Markdown file names one the repository holds (counted from the
// file's folder or the root; a bare name may be any file of that name; inside a URL it is
// someone else's); every trap cited in a comment, a test name or a document exists in
// docs/TRAPS.md; a source file whose comments cite a trap names docs/TRAPS.md, so that the
// number can be looked up; and every test docs/TRAPS.md lists as a guard exists under that name.

/** The file the numbered traps live in. */
export const trapsDocumentPath = 'docs/TRAPS.md';
const trapHeading = /^## Trap (\d+)\b/gm;
const trapCitation = /\btraps?\s+(\d+(?:\s*(?:,|and|or)\s*\d+)*)/gi;
const markdownName = /(?<![\w./-])((?:\.{1,2}\/)*[\w-][\w./-]*\.md)(?![\w-])/g;
const url = /\b[a-z][a-z+.-]*:\/\/[^\s)>\]'"`]+/gi;

/** The trap numbers docs/TRAPS.md defines (its "## Trap N: …" headings). */
export function trapNumbersOf(trapsDocument) {
  const numbers = new Set();
  for (const m of trapsDocument.matchAll(trapHeading)) numbers.add(Number(m[1]));
  return numbers;
}

/**
 * The prose of a file, each piece with where it starts: for JavaScript and TypeScript its comments
 * and its test names (the first string of it/test/describe), for shell and Python its # comments,
 * for Markdown all of it. Strings are skipped, so code that builds such text is not prose.
 */
export function proseOf(relPath, text) {
  if (relPath.endsWith('.md')) return [{ kind: 'document', text, index: 0 }];
  // Protocol Buffers definitions: line comments only (their strings never name a document).
  if (relPath.endsWith('.proto')) {
    return [...text.matchAll(/\/\/.*$/gm)].map((m) => ({ kind: 'comment', text: m[0], index: m.index }));
  }
  if (!/\.[cm]?[jt]s$/.test(relPath)) {
    return [...text.matchAll(/(^|\s)(#(?!!).*)$/gm)].map((m) => ({
      kind: 'comment',
      text: m[2],
      index: m.index + m[1].length,
    }));
  }
  const pieces = [];
  let lastCode = ''; // the last non-blank code character, to tell a regex literal from a division
  let i = 0;
  const skipQuoted = (quote, start) => {
    let j = start + 1;
    while (j < text.length && text[j] !== quote && !(quote !== '`' && text[j] === '\n')) j += text[j] === '\\' ? 2 : 1;
    return j;
  };
  while (i < text.length) {
    const c = text[i];
    const next = text[i + 1];
    if (c === '/' && next === '/') {
      const end = text.indexOf('\n', i);
      const stop = end < 0 ? text.length : end;
      pieces.push({ kind: 'comment', text: text.slice(i, stop), index: i });
      i = stop;
    } else if (c === '/' && next === '*') {
      const end = text.indexOf('*/', i + 2);
      const stop = end < 0 ? text.length : end + 2;
      pieces.push({ kind: 'comment', text: text.slice(i, stop), index: i });
      i = stop;
    } else if (c === "'" || c === '"' || c === '`') {
      const end = skipQuoted(c, i);
      if (/\b(?:it|test|describe)(?:\.\w+)*\(\s*$/.test(text.slice(Math.max(0, i - 40), i))) {
        pieces.push({ kind: 'test name', text: text.slice(i + 1, end), index: i + 1 });
      }
      i = end + 1;
      lastCode = c;
    } else if (c === '/' && (lastCode === '' || /[(,=:[!&|?{};+\-*%<>~^]/.test(lastCode))) {
      // A regex literal: skip to its closing slash, over escapes and character classes.
      let j = i + 1;
      let isInClass = false;
      while (j < text.length && text[j] !== '\n' && (isInClass || text[j] !== '/')) {
        if (text[j] === '\\') j++;
        else if (text[j] === '[') isInClass = true;
        else if (text[j] === ']') isInClass = false;
        j++;
      }
      i = j + 1;
      lastCode = '/';
    } else {
      if (!/\s/.test(c)) lastCode = /[\w$)\]]/.test(c) ? 'x' : c;
      i++;
    }
  }
  return pieces;
}

/** Whether `name`, as written in `relPath`, is a file of the repository. */
function resolvesInRepository(relPath, name, repository) {
  const folder = relPath.split('/').slice(0, -1);
  for (const start of [folder, []]) {
    const parts = [...start];
    let isInside = true;
    for (const seg of name.split('/')) {
      if (seg === '..') isInside = parts.pop() !== undefined && isInside;
      else if (seg !== '.' && seg !== '') parts.push(seg);
    }
    if (isInside && repository.hasFile(parts.join('/'))) return true;
  }
  return !name.includes('/') && repository.hasBaseName(name);
}

/**
 * Returns `path:line: message` problems of one file's references to documents and traps.
 * `repository` answers hasFile(relPath), hasBaseName(name) and holds trapNumbers (a Set).
 */
export function lintDocumentReferences(relPath, text, repository) {
  const problems = [];
  const lineOf = (index) => text.slice(0, index).split('\n').length;
  let firstCommentCitation;
  let namesTrapsDocument = false;
  for (const piece of proseOf(relPath, text)) {
    if (piece.kind !== 'test name') {
      const prose = piece.text.replace(url, (m) => ' '.repeat(m.length));
      for (const m of prose.matchAll(markdownName)) {
        if (!resolvesInRepository(relPath, m[1], repository)) {
          problems.push(
            `${relPath}:${lineOf(piece.index + m.index)}: ${m[1]} is not a file of the repository: cite a document it holds (docs/ARCHITECTURE.md, docs/architecture/, docs/TRAPS.md)`,
          );
        }
        if (m[1] === trapsDocumentPath) namesTrapsDocument = true;
      }
    }
    for (const m of piece.text.matchAll(trapCitation)) {
      if (piece.kind === 'comment') firstCommentCitation ??= piece.index + m.index;
      for (const number of m[1].match(/\d+/g)) {
        if (!repository.trapNumbers.has(Number(number))) {
          problems.push(
            `${relPath}:${lineOf(piece.index + m.index)}: trap ${number} is not in ${trapsDocumentPath}: cite a trap it numbers, or add the trap there`,
          );
        }
      }
    }
  }
  if (firstCommentCitation !== undefined && !namesTrapsDocument) {
    problems.push(
      `${relPath}:${lineOf(firstCommentCitation)}: a comment cites a trap, but no comment of this file names ${trapsDocumentPath}: write "${trapsDocumentPath}, trap N" at the first citation`,
    );
  }
  return problems;
}

/**
 * Returns problems of docs/TRAPS.md itself: every trap lists at least one guarding test, as
 * "- `test/…`: \"its name\"", and each listed file exists and has a test of that name.
 * `repository.readFile(relPath)` returns a file's text, or undefined when there is none.
 */
export function lintTrapsDocument(text, repository) {
  const problems = [];
  const lineOf = (index) => text.slice(0, index).split('\n').length;
  const seen = new Set();
  const sections = [...text.matchAll(trapHeading)];
  sections.forEach((heading, k) => {
    const number = Number(heading[1]);
    if (seen.has(number))
      problems.push(`${trapsDocumentPath}:${lineOf(heading.index)}: trap ${number} is numbered twice`);
    seen.add(number);
    const end = k + 1 < sections.length ? sections[k + 1].index : text.length;
    const guards = [...text.slice(heading.index, end).matchAll(/^- `([^`]+)`(?:: "(.*)")?\s*$/gm)];
    if (guards.length === 0)
      problems.push(`${trapsDocumentPath}:${lineOf(heading.index)}: trap ${number} lists no test that guards it`);
    for (const guard of guards) {
      const at = `${trapsDocumentPath}:${lineOf(heading.index + guard.index)}`;
      const source = repository.readFile(guard[1]);
      if (source === undefined) problems.push(`${at}: ${guard[1]} does not exist`);
      else if (
        guard[2] !== undefined &&
        !proseOf(guard[1], source).some((p) => p.kind === 'test name' && p.text.replace(/\\(.)/g, '$1') === guard[2])
      ) {
        problems.push(`${at}: ${guard[1]} has no test named "${guard[2]}"`);
      }
    }
  });
  return problems;
}
