/**
 * The runtime stage of deploy/compose/Dockerfile laid out on this machine without a container
 * engine: each `COPY --from=build SRC DEST` of the last stage is taken from the built checkout
 * (the build stage's WORKDIR is the checkout) into a temporary directory standing for the runtime
 * WORKDIR. Only those paths are there, so a file the node reads at run time that the Dockerfile
 * forgets is missing here too.
 *
 * node_modules is laid out as `npm prune --omit=dev` leaves it: the packages package-lock.json
 * does not mark dev-only, linked to the checkout's copies (a package's own dependencies resolve
 * from its real location, and a production package depends only on production packages).
 */
import { cpSync, existsSync, mkdirSync, readFileSync, readdirSync, symlinkSync } from 'node:fs';
import { dirname, join, posix } from 'node:path';
import { repoRoot } from './node-process.js';

export interface DockerInstruction {
  readonly instruction: string;
  readonly args: string;
}

export interface RuntimeStage {
  /** The WORKDIR of the build stage, where its COPY sources are. */
  readonly buildWorkdir: string;
  /** The WORKDIR of the runtime stage (the image's /app). */
  readonly workdir: string;
  /** Each COPY --from=build of the runtime stage: absolute source in the build stage, destination relative to `workdir`. */
  readonly copies: readonly { readonly source: string; readonly destination: string }[];
}

/** The build stage's WORKDIR and the runtime (last) stage's WORKDIR and COPY --from=build lines. */
export function runtimeStageOf(instructions: readonly DockerInstruction[]): RuntimeStage {
  const stageStarts = instructions.flatMap((line, index) => (line.instruction === 'FROM' ? [index] : []));
  const buildStart = instructions.findIndex((line) => line.instruction === 'FROM' && / AS build$/i.test(line.args));
  const runtimeStart = stageStarts[stageStarts.length - 1];
  if (buildStart === -1 || runtimeStart === undefined || runtimeStart === buildStart)
    throw new Error('expected a build stage "AS build" and a runtime stage after it');
  const workdirOf = (from: number, to: number): string => {
    const workdirs = instructions.slice(from, to).filter((line) => line.instruction === 'WORKDIR');
    const last = workdirs[workdirs.length - 1];
    if (last === undefined) throw new Error('every stage must set its WORKDIR');
    return last.args;
  };
  const nextAfterBuild = stageStarts.find((start) => start > buildStart) ?? instructions.length;
  const buildWorkdir = workdirOf(buildStart, nextAfterBuild);
  const workdir = workdirOf(runtimeStart, instructions.length);
  const copies = instructions
    .slice(runtimeStart)
    .filter((line) => line.instruction === 'COPY')
    .map((line) => {
      const words = line.args.split(/\s+/);
      if (words[0] !== '--from=build' || words.length !== 3)
        throw new Error(`expected COPY --from=build SRC DEST, got COPY ${line.args}`);
      const source = posix.resolve(buildWorkdir, words[1] as string);
      const destination = posix.relative(workdir, posix.resolve(workdir, words[2] as string));
      if (destination.startsWith('..')) throw new Error(`COPY destination outside ${workdir}: ${words[2]}`);
      return { source, destination };
    });
  return { buildWorkdir, workdir, copies };
}

/** Lays the runtime stage out under `appDir` (which stands for the runtime WORKDIR). */
export function assembleRuntimeStage(stage: RuntimeStage, appDir: string): void {
  for (const { source, destination } of stage.copies) {
    const relativeSource = posix.relative(stage.buildWorkdir, source);
    if (relativeSource.startsWith('..'))
      throw new Error(`COPY source outside the build stage's ${stage.buildWorkdir}: ${source}`);
    const from = join(repoRoot, relativeSource);
    const to = join(appDir, destination);
    if (!existsSync(from)) throw new Error(`${source} is not in the built checkout (${from}): run npm run build`);
    mkdirSync(dirname(to), { recursive: true });
    if (relativeSource === 'node_modules') linkProductionModules(from, to);
    else cpSync(from, to, { recursive: true });
  }
}

/** Top-level packages of `modulesDir` that `npm prune --omit=dev` keeps, linked into `to`. */
function linkProductionModules(modulesDir: string, to: string): void {
  const lock = JSON.parse(readFileSync(join(repoRoot, 'package-lock.json'), 'utf8')) as {
    packages: Record<string, { dev?: boolean }>;
  };
  mkdirSync(to, { recursive: true });
  for (const entry of readdirSync(modulesDir)) {
    if (entry.startsWith('.')) continue;
    const names = entry.startsWith('@')
      ? readdirSync(join(modulesDir, entry)).map((scoped) => `${entry}/${scoped}`)
      : [entry];
    for (const name of names) {
      const locked = lock.packages[`node_modules/${name}`];
      if (locked === undefined || locked.dev === true) continue;
      mkdirSync(dirname(join(to, name)), { recursive: true });
      symlinkSync(join(modulesDir, name), join(to, name), 'dir');
    }
  }
}
