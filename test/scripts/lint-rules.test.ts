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
