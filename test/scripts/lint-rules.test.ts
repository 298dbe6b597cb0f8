import { describe, expect, it } from 'vitest';
// @ts-expect-error: a plain ES module without declarations
import { lintDocumentReferences, lintFile, lintTrapsDocument, trapNumbersOf } from '../../scripts/lint-rules.mjs';

const lint = lintFile as (path: string, text: string) => string[];

interface Repository {
  hasFile(relPath: string): boolean;
  hasBaseName(name: string): boolean;
  readonly trapNumbers: Set<number>;
  readFile(relPath: string): string | undefined;
}
const lintReferences = lintDocumentReferences as (path: string, text: string, repository: Repository) => string[];
const lintTraps = lintTrapsDocument as (text: string, repository: Repository) => string[];
const trapNumbers = trapNumbersOf as (text: string) => Set<number>;

/** A repository of the given files (path → text), whose docs/TRAPS.md numbers traps 1 to 3. */
function repositoryOf(files: Record<string, string>): Repository {
  const all: Record<string, string> = {
    'docs/TRAPS.md': '# Traps\n## Trap 1: a\n## Trap 2: b\n## Trap 3: c\n',
    ...files,
  };
  return {
    hasFile: (relPath) => relPath in all,
    hasBaseName: (name) => Object.keys(all).some((f) => f.split('/').pop() === name),
    trapNumbers: trapNumbers(all['docs/TRAPS.md']!),
    readFile: (relPath) => all[relPath],
  };
}
const repository = repositoryOf({ 'README.md': '', 'docs/OPERATIONS.md': '', 'docs/architecture/queue.md': '' });

describe('lint rules', () => {
  it('refuse the wall clock, timers and randomness in the deterministic core', () => {
    const text = 'export const t = Date.now();\nsetTimeout(() => 0, 1);\nconst r = Math.random();\n';
    expect(lint('src/queue/x.ts', text)).toHaveLength(3);
    expect(lint('src/storage/mvcc-store.ts', text)).toHaveLength(3);
  });

  it('allow them in the runtime and in the LevelDB engine', () => {
    const text = 'export const t = Date.now();\nimport { open } from "node:fs";\n';
    expect(lint('src/cli/node.ts', text)).toEqual([]);
    expect(lint('src/storage/level-engine.ts', text)).toEqual([]);
  });

  it("refuse the host's clocks and timers in the layers the simulator runs: they take the node's Scheduler", () => {
    const text =
      'const a = Date.now();\nconst b = performance.now();\nsetTimeout(() => 0, 1);\nconst t = setInterval(() => 0, 1);\nsetImmediate(() => 0);\n';
    const problems = lint('src/cluster/txn-committer.ts', text);
    expect(problems).toHaveLength(5);
    expect(problems).toContainEqual(expect.stringMatching(/txn-committer\.ts:1: Date\.now\(\).*Scheduler/));
    expect(problems).toContainEqual(expect.stringMatching(/txn-committer\.ts:2: performance\.now\(\)/));
    expect(problems).toContainEqual(expect.stringMatching(/txn-committer\.ts:4: host timers/));
    expect(problems).toContainEqual(expect.stringMatching(/txn-committer\.ts:5: host timers/));
    expect(lint('src/forwarding/forwarding-queue-operations.ts', text)).toHaveLength(5);
  });

  it("allow the host's clocks and timers in the Scheduler's production implementation, the gRPC transport and outside the simulated layers", () => {
    const text = 'const a = Date.now();\nconst b = performance.now();\nsetTimeout(() => 0, 1);\n';
    expect(lint('src/base/scheduler.ts', text)).toEqual([]);
    expect(lint('src/cluster/grpc-transport.ts', text)).toEqual([]);
    expect(lint('src/cluster/peer-link.ts', text)).toEqual([]);
    expect(lint('src/sqs/sqs-server.ts', text)).toEqual([]);
  });

  it("allow the node's Scheduler and a mention of the host's calls in a comment", () => {
    const text =
      '// no Date.now() or setTimeout() here\nconst startedMs = scheduler.monotonicMs();\nscheduler.after(5, () => 0);\n';
    expect(lint('src/cluster/read-index-reader.ts', text)).toEqual([]);
  });

  it('refuse the host clock, timers and randomness in the whole-node simulator, but not in its timer queue or its tests', () => {
    const text = 'export const t = Date.now();\nsetTimeout(() => 0, 1);\nconst r = Math.random();\n';
    expect(lint('test/sim-node/sim-net.ts', text)).toHaveLength(3);
    expect(lint('test/sim-node/sim-net.ts', text)[0]).toMatch(/VirtualTime/);
    expect(lint('test/sim-node/virtual-time.ts', text)).toEqual([]);
    expect(lint('test/sim-node/corpus.test.ts', text)).toEqual([]);
  });

  it('refuse node: I/O modules in the core but allow hashing', () => {
    expect(lint('src/raft/x.ts', "import { readFile } from 'node:fs';\n")).toHaveLength(1);
    expect(lint('src/queue/x.ts', "import { createHash } from 'node:crypto';\n")).toEqual([]);
  });

  it('refuse promises in the Raft core', () => {
    expect(
      lint('src/raft/x.ts', 'export async function f(): Promise<void> { await g(); }\n').length,
    ).toBeGreaterThanOrEqual(3);
  });

  it('refuse imports against the layer direction', () => {
    expect(lint('src/storage/x.ts', "import { Q } from '../queue/q.js';\n")).toHaveLength(1);
    expect(lint('src/raft/x.ts', "import { E } from '../storage/e.js';\n")).toHaveLength(1);
    expect(lint('src/queue/x.ts', "import { E } from '../storage/e.js';\n")).toEqual([]);
  });

  it('refuse an assert message built on every call, and allow one built when the check fails', () => {
    expect(lint('src/storage/x.ts', 'assert(a > b, `a ${a} after ${b}`);\n')).toHaveLength(1);
    expect(lint('src/queue/x.ts', 'assert(\n  f(a, b),\n  `a ${a}`,\n);\n')).toEqual([
      'src/queue/x.ts:1: an assert message with values in it is built on every call: pass () => `…` instead',
    ]);
    expect(lint('src/storage/x.ts', 'assert(a > b, () => `a ${a} after ${b}`);\n')).toEqual([]);
    expect(lint('src/storage/x.ts', "assert(a > b, 'a after b');\nassert(ok, `plain`);\n")).toEqual([]);
  });

  it('ignore what stands in comments', () => {
    expect(lint('src/queue/x.ts', '// Date.now() is not used here\n/* Math.random() */\n')).toEqual([]);
  });
});

describe('lint rule: no path leaves the repository', () => {
  it('refuses a relative path that climbs above the root from the file that names it', () => {
    const problems = lint(
      'test/clients/x.ts',
      "export const p = new URL('../../../elsewhere/models', import.meta.url);\n",
    );
    expect(problems).toHaveLength(1);
    expect(problems[0]).toContain("test/clients/x.ts:1: '../../../elsewhere/models' leaves the repository");
    expect(lint('scripts/x.mjs', "const out = new URL('../../docs/x.md', import.meta.url);\n")).toHaveLength(1);
  });

  it('allows relative paths that stay inside, imports included', () => {
    expect(
      lint(
        'test/clients/x.ts',
        "import { y } from '../../src/sqs/y.js';\nexport const p = new URL('../../model/botocore', import.meta.url);\n",
      ),
    ).toEqual([]);
    expect(lint('scripts/x.mjs', "const root = new URL('..', import.meta.url).pathname;\n")).toEqual([]);
  });

  it('counts from dist/ for TypeScript that tsc emits there, and from the source folder for tests', () => {
    expect(lint('bench/soak.ts', "const out = new URL('../../bench/results', import.meta.url).pathname;\n")).toEqual(
      [],
    );
    expect(
      lint('test/soak.test.ts', "const out = new URL('../../bench/results', import.meta.url).pathname;\n"),
    ).toHaveLength(1);
  });

  it('refuses paths joined from the repository root or the file folder that climb out of it', () => {
    expect(lint('scripts/gen.mjs', "const source = join(root, '..', 'elsewhere', 'aws');\n")).toHaveLength(1);
    expect(lint('test/sqs/x.test.ts', "const p = join(repositoryRoot(), '..', 'elsewhere');\n")).toHaveLength(1);
    expect(lint('test/sqs/x.test.ts', "const p = path.resolve(repoRoot, 'model/../../elsewhere');\n")).toHaveLength(1);
    expect(lint('test/sqs/x.test.ts', 'const p = `${repoRoot}/../elsewhere/models`;\n')).toHaveLength(1);
    expect(
      lint(
        'test/compat/python/x.py',
        'MODEL = os.path.join(os.path.dirname(__file__), "..", "..", "..", "..", "elsewhere")\n',
      ),
    ).toHaveLength(1);
  });

  it('names the line of the path', () => {
    const text = "const a = `two\nlines`;\nconst b = 'x';\nconst p = join(root,\n  '..');\n";
    expect(lint('scripts/gen.mjs', text)).toEqual([
      expect.stringMatching(/^scripts\/gen\.mjs:4: join\(root, …, '\.\.'\) leaves the repository/),
    ]);
  });

  it('allows joins that stay inside, or whose segments it cannot know', () => {
    expect(
      lint(
        'scripts/gen.mjs',
        "const p = join(root, 'model', '..', 'docs');\nconst q = join(root, name, '..', '..');\nconst r = parts.join('/');\n",
      ),
    ).toEqual([]);
    expect(
      lint('test/compat/python/x.py', 'HERE = os.path.join(os.path.dirname(__file__), "..", "..", "..", "model")\n'),
    ).toEqual([]);
  });

  it('ignores paths that stand in comments', () => {
    expect(
      lint('test/clients/x.ts', "// once read from '../../../elsewhere/models'\n/* join(root, '..', 'x') */\n"),
    ).toEqual([]);
    expect(lint('test/clients/python/x.py', '# was "../../../../elsewhere"\n')).toEqual([]);
  });
});

describe('lint rule: the documents and traps a file cites exist', () => {
  it('refuses a comment naming a Markdown file the repository does not hold, and names its line', () => {
    const text = '/**\n * The admin port (PLAN.md §6).\n */\n// see docs/architecture/nothing.md\n';
    expect(lintReferences('src/admin/x.ts', text, repository)).toEqual([
      expect.stringMatching(/^src\/admin\/x\.ts:2: PLAN\.md is not a file of the repository/),
      expect.stringMatching(/^src\/admin\/x\.ts:4: docs\/architecture\/nothing\.md is not a file/),
    ]);
    expect(lintReferences('bench/peers/x.sh', '#!/bin/sh\n# started as PLAN.md says\n', repository)).toHaveLength(1);
    expect(lintReferences('docs/x.md', 'As PLAN.md §4 has it.\n', repository)).toHaveLength(1);
    expect(
      lintReferences('proto/x.proto', 'syntax = "proto3";\n// one group per envelope (PLAN.md §10)\n', repository),
    ).toEqual([expect.stringMatching(/^proto\/x\.proto:2: PLAN\.md is not a file of the repository/)]);
  });

  it('accepts names counted from the root or from the file, bare names of a file it holds, and URLs', () => {
    const text = [
      '// docs/OPERATIONS.md, "Admin endpoints"; README.md; queue.md',
      '/* ../../docs/OPERATIONS.md */',
      "// LevelDB's format: https://github.com/google/leveldb/blob/main/doc/log_format.md",
      '',
    ].join('\n');
    expect(lintReferences('src/admin/x.ts', text, repository)).toEqual([]);
    expect(
      lintReferences(
        'docs/architecture/x.md',
        'See [queue.md](queue.md#keys) and [ops](../OPERATIONS.md).\n',
        repository,
      ),
    ).toEqual([]);
    expect(
      lintReferences('docs/architecture/x.md', 'See [ops](OPERATIONS.md), [gone](../GONE.md).\n', repository),
    ).toEqual([expect.stringContaining('../GONE.md is not a file')]);
  });

  it('reads only comments of code: strings and regex literals may hold any name', () => {
    const text = "const doc = 'PLAN.md'; // a string\nconst re = /['\"]\\/\\/ PLAN.md/;\nconst t = `// PLAN.md`;\n";
    expect(lintReferences('scripts/x.mjs', text, repository)).toEqual([]);
    // A quote inside a regex literal starts no string that would hide the comment after it.
    expect(lintReferences('scripts/x.mjs', "const re = /'/; // see PLAN.md\n", repository)).toHaveLength(1);
  });

  it('refuses a trap number docs/TRAPS.md does not hold, in comments, test names and documents', () => {
    const inComment = '// docs/TRAPS.md, traps 2, 7 and 3\n';
    expect(lintReferences('src/queue/x.ts', inComment, repository)).toEqual([
      expect.stringMatching(/^src\/queue\/x\.ts:1: trap 7 is not in docs\/TRAPS\.md/),
    ]);
    const inTestName =
      "import { it } from 'vitest';\nit('keeps the rule (trap 9)', () => {});\nit('keeps the rule (trap 1)', () => {});\n";
    expect(lintReferences('test/queue/x.test.ts', inTestName, repository)).toEqual([
      expect.stringMatching(/^test\/queue\/x\.test\.ts:2: trap 9 is not in/),
    ]);
    expect(lintReferences('docs/x.md', 'Retries re-read (Trap 12).\n', repository)).toEqual([
      expect.stringContaining('trap 12 is not in'),
    ]);
    expect(
      lintReferences('docs/x.md', 'Retries re-read (traps 1 and 3 of [TRAPS.md](TRAPS.md)).\n', repository),
    ).toEqual([]);
  });

  it('refuses a source file whose comments cite a trap without naming docs/TRAPS.md, once, at the first citation', () => {
    const text = 'const a = 1;\n// claims from a rotating start (trap 2)\n// and more (trap 3)\n';
    expect(lintReferences('src/queue/x.ts', text, repository)).toEqual([
      expect.stringMatching(
        /^src\/queue\/x\.ts:2: a comment cites a trap, but no comment of this file names docs\/TRAPS\.md/,
      ),
    ]);
    expect(lintReferences('src/queue/x.ts', text.replace('(trap 2)', '(docs/TRAPS.md, trap 2)'), repository)).toEqual(
      [],
    );
    expect(lintReferences('src/queue/x.ts', text.replace('(trap 2)', '(README.md, trap 2)'), repository)).toHaveLength(
      1,
    );
    // A test name is listed in docs/TRAPS.md itself, so a file citing traps only there needs no comment.
    expect(lintReferences('test/queue/x.test.ts', "it('keeps it (trap 1)', () => {});\n", repository)).toEqual([]);
  });

  it('reads the trap numbers from the headings of docs/TRAPS.md', () => {
    expect([...trapNumbers('# Traps\n| trap |\n## Trap 1: a\ntrap 9 in prose\n## Trap 12: b\n')]).toEqual([1, 12]);
  });
});

describe('lint rule: docs/TRAPS.md lists tests that exist', () => {
  const testFile =
    "describe('x', () => {\n  it('keeps the rule (trap 1)', () => {});\n  it(\"keeps it, doesn't it\", () => {});\n});\n";
  const files = { 'test/x.test.ts': testFile };

  it('accepts guards whose file has a test of that name', () => {
    const doc =
      '## Trap 1: a\n**Guarded by.**\n- `test/x.test.ts`: "keeps the rule (trap 1)"\n## Trap 2: b\n- `test/x.test.ts`: "keeps it, doesn\'t it"\n';
    expect(lintTraps(doc, repositoryOf(files))).toEqual([]);
  });

  it('refuses a missing file, a missing test name, a trap without a guard and a number used twice', () => {
    const doc = [
      '## Trap 1: a',
      '- `test/gone.test.ts`: "keeps the rule (trap 1)"',
      '- `test/x.test.ts`: "keeps a rule it does not (trap 1)"',
      '## Trap 2: b',
      'No test yet.',
      '## Trap 1: c',
      '- `test/x.test.ts`',
      '',
    ].join('\n');
    expect(lintTraps(doc, repositoryOf(files))).toEqual([
      'docs/TRAPS.md:2: test/gone.test.ts does not exist',
      'docs/TRAPS.md:3: test/x.test.ts has no test named "keeps a rule it does not (trap 1)"',
      'docs/TRAPS.md:4: trap 2 lists no test that guards it',
      'docs/TRAPS.md:6: trap 1 is numbered twice',
    ]);
  });
});
