import { describe, expect, it } from 'vitest';
// @ts-expect-error: a plain ES module without declarations
import { lintFile } from '../../scripts/lint-rules.mjs';

const lint = lintFile as (path: string, text: string) => string[];

describe('lint rules', () => {
  it('refuse the wall clock, timers and randomness in the deterministic core', () => {
    const text = 'export const t = Date.now();\nsetTimeout(() => 0, 1);\nconst r = Math.random();\n';
    expect(lint('src/queue/x.ts', text)).toHaveLength(3);
    expect(lint('src/storage/mvcc-store.ts', text)).toHaveLength(3);
  });

  it('allow them in the runtime and in the LevelDB engine', () => {
    const text = 'export const t = Date.now();\nimport { open } from "node:fs";\n';
    expect(lint('src/cluster/node.ts', text)).toEqual([]);
    expect(lint('src/storage/level-engine.ts', text)).toEqual([]);
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
    expect(lint('src/raft/x.ts', 'export async function f(): Promise<void> { await g(); }\n').length).toBeGreaterThanOrEqual(3);
  });

  it('refuse imports against the layer direction', () => {
    expect(lint('src/storage/x.ts', "import { Q } from '../queue/q.js';\n")).toHaveLength(1);
    expect(lint('src/raft/x.ts', "import { E } from '../storage/e.js';\n")).toHaveLength(1);
    expect(lint('src/queue/x.ts', "import { E } from '../storage/e.js';\n")).toEqual([]);
  });

  it('ignore what stands in comments', () => {
    expect(lint('src/queue/x.ts', '// Date.now() is not used here\n/* Math.random() */\n')).toEqual([]);
  });
});

describe('lint rule: no path leaves the repository', () => {
  it('refuses a relative path that climbs above the root from the file that names it', () => {
    const problems = lint('test/clients/x.ts', "export const p = new URL('../../../elsewhere/models', import.meta.url);\n");
    expect(problems).toHaveLength(1);
    expect(problems[0]).toContain("test/clients/x.ts:1: '../../../elsewhere/models' leaves the repository");
    expect(lint('scripts/x.mjs', "const out = new URL('../../docs/x.md', import.meta.url);\n")).toHaveLength(1);
  });

  it('allows relative paths that stay inside, imports included', () => {
    expect(lint('test/clients/x.ts', "import { y } from '../../src/sqs/y.js';\nexport const p = new URL('../../model/botocore', import.meta.url);\n")).toEqual([]);
    expect(lint('scripts/x.mjs', "const root = new URL('..', import.meta.url).pathname;\n")).toEqual([]);
  });

  it('counts from dist/ for TypeScript that tsc emits there, and from the source folder for tests', () => {
    expect(lint('bench/soak.ts', "const out = new URL('../../bench/results', import.meta.url).pathname;\n")).toEqual([]);
    expect(lint('test/soak.test.ts', "const out = new URL('../../bench/results', import.meta.url).pathname;\n")).toHaveLength(1);
  });

  it('refuses paths joined from the repository root or the file folder that climb out of it', () => {
    expect(lint('scripts/gen.mjs', "const source = join(root, '..', 'elsewhere', 'aws');\n")).toHaveLength(1);
    expect(lint('test/sqs/x.test.ts', "const p = join(repositoryRoot(), '..', 'elsewhere');\n")).toHaveLength(1);
    expect(lint('test/sqs/x.test.ts', "const p = path.resolve(repoRoot, 'model/../../elsewhere');\n")).toHaveLength(1);
    expect(lint('test/sqs/x.test.ts', 'const p = `${repoRoot}/../elsewhere/models`;\n')).toHaveLength(1);
    expect(lint('test/compat/python/x.py', 'MODEL = os.path.join(os.path.dirname(__file__), "..", "..", "..", "..", "elsewhere")\n')).toHaveLength(1);
  });

  it('names the line of the path', () => {
    const text = "const a = `two\nlines`;\nconst b = 'x';\nconst p = join(root,\n  '..');\n";
    expect(lint('scripts/gen.mjs', text)).toEqual([expect.stringMatching(/^scripts\/gen\.mjs:4: join\(root, …, '\.\.'\) leaves the repository/)]);
  });

  it('allows joins that stay inside, or whose segments it cannot know', () => {
    expect(lint('scripts/gen.mjs', "const p = join(root, 'model', '..', 'docs');\nconst q = join(root, name, '..', '..');\nconst r = parts.join('/');\n")).toEqual([]);
    expect(lint('test/compat/python/x.py', 'HERE = os.path.join(os.path.dirname(__file__), "..", "..", "..", "model")\n')).toEqual([]);
  });

  it('ignores paths that stand in comments', () => {
    expect(lint('test/clients/x.ts', "// once read from '../../../elsewhere/models'\n/* join(root, '..', 'x') */\n")).toEqual([]);
    expect(lint('test/clients/python/x.py', '# was "../../../../elsewhere"\n')).toEqual([]);
  });
});
