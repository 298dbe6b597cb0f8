/**
 * Command-line flags with one precedence for every command: a flag on the command line, else the
 * RAFTQ_<FLAG> environment variable (dashes as underscores), else the JSON file of --config (keys
 * as the flag is spelled, or in camelCase), else the default.
 */
import { readFileSync } from 'node:fs';
import { RaftqError } from '../base/errors.js';

export type FlagKind = 'string' | 'number' | 'boolean';

export interface FlagSpec {
  readonly name: string;
  readonly kind: FlagKind;
  readonly description: string;
  /** Shown in --help; the command applies defaults itself. */
  readonly defaultText?: string;
}

export type FlagValues = Record<string, string | number | boolean | undefined>;

export class UsageError extends RaftqError {
  readonly code = 'Usage';
  constructor(message: string) {
    super(message);
  }
}

function camelCase(name: string): string {
  return name.replace(/-([a-z])/g, (_, c: string) => c.toUpperCase());
}

export function envName(flagName: string): string {
  return `RAFTQ_${flagName.toUpperCase().replace(/-/g, '_')}`;
}

function convert(spec: FlagSpec, raw: unknown, source: string): string | number | boolean {
  if (spec.kind === 'boolean') {
    if (typeof raw === 'boolean') return raw;
    const text = String(raw).toLowerCase();
    if (['1', 'true', 'yes', 'on', ''].includes(text)) return true;
    if (['0', 'false', 'no', 'off'].includes(text)) return false;
    throw new UsageError(`--${spec.name} from ${source}: expected true or false, got "${String(raw)}"`);
  }
  if (spec.kind === 'number') {
    const value = typeof raw === 'number' ? raw : Number(String(raw));
    if (!Number.isFinite(value))
      throw new UsageError(`--${spec.name} from ${source}: expected a number, got "${String(raw)}"`);
    return value;
  }
  if (typeof raw === 'object' && raw !== null && !Array.isArray(raw)) {
    // A JSON config may give a peer map as an object: {"n1": "127.0.0.1:9326", ...}.
    return Object.entries(raw as Record<string, unknown>)
      .map(([k, v]) => `${k}=${String(v)}`)
      .join(',');
  }
  if (Array.isArray(raw)) return raw.map(String).join(',');
  return String(raw);
}

/** Parses argv (after the command words) into flag values and positional arguments. */
export function parseFlags(
  argv: readonly string[],
  specs: readonly FlagSpec[],
  env: NodeJS.ProcessEnv,
  options: { allowConfigFile: boolean },
): { values: FlagValues; positionals: string[] } {
  const byName = new Map(specs.map((spec) => [spec.name, spec]));
  const fromArgs: FlagValues = {};
  const positionals: string[] = [];
  let configPath: string | undefined;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] as string;
    if (!arg.startsWith('--')) {
      positionals.push(arg);
      continue;
    }
    const eq = arg.indexOf('=');
    const name = eq === -1 ? arg.slice(2) : arg.slice(2, eq);
    const inline = eq === -1 ? undefined : arg.slice(eq + 1);
    if (name === 'config' && options.allowConfigFile) {
      configPath = inline ?? argv[++i];
      if (configPath === undefined) throw new UsageError('--config needs a file');
      continue;
    }
    const spec = byName.get(name);
    if (spec === undefined) throw new UsageError(`unknown flag --${name}`);
    if (spec.kind === 'boolean' && inline === undefined) {
      const next = argv[i + 1];
      fromArgs[name] =
        next !== undefined && /^(true|false)$/i.test(next) ? convert(spec, argv[++i], 'the command line') : true;
      continue;
    }
    const raw = inline ?? argv[++i];
    if (raw === undefined) throw new UsageError(`--${name} needs a value`);
    fromArgs[name] = convert(spec, raw, 'the command line');
  }
  configPath ??= options.allowConfigFile ? env[envName('config')] : undefined;
  const fromFile = configPath === undefined ? {} : readConfigFile(configPath, specs);
  const values: FlagValues = {};
  for (const spec of specs) {
    const envValue = env[envName(spec.name)];
    if (fromArgs[spec.name] !== undefined) values[spec.name] = fromArgs[spec.name];
    else if (envValue !== undefined) values[spec.name] = convert(spec, envValue, envName(spec.name));
    else if (fromFile[spec.name] !== undefined) values[spec.name] = fromFile[spec.name];
  }
  return { values, positionals };
}

function readConfigFile(path: string, specs: readonly FlagSpec[]): FlagValues {
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(path, 'utf8'));
  } catch (error) {
    throw new UsageError(`--config ${path}: ${error instanceof Error ? error.message : String(error)}`);
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
    throw new UsageError(`--config ${path}: expected a JSON object`);
  const record = parsed as Record<string, unknown>;
  const known = new Set(specs.flatMap((spec) => [spec.name, camelCase(spec.name)]));
  for (const key of Object.keys(record))
    if (!known.has(key)) throw new UsageError(`--config ${path}: unknown setting "${key}"`);
  const values: FlagValues = {};
  for (const spec of specs) {
    const raw = record[spec.name] ?? record[camelCase(spec.name)];
    if (raw !== undefined && raw !== null) values[spec.name] = convert(spec, raw, path);
  }
  return values;
}

export function helpText(command: string, specs: readonly FlagSpec[]): string {
  const lines = [`Usage: raftq ${command} [flags]`, ''];
  for (const spec of specs) {
    const value = spec.kind === 'boolean' ? '' : spec.kind === 'number' ? ' N' : ' VALUE';
    const def = spec.defaultText === undefined ? '' : ` (default ${spec.defaultText})`;
    lines.push(`  --${spec.name}${value}`.padEnd(36) + `${spec.description}${def} [${envName(spec.name)}]`);
  }
  return lines.join('\n');
}

export function stringFlag(values: FlagValues, name: string): string | undefined {
  const value = values[name];
  return value === undefined ? undefined : String(value);
}

export function numberFlag(values: FlagValues, name: string): number | undefined {
  const value = values[name];
  return typeof value === 'number' ? value : undefined;
}

export function booleanFlag(values: FlagValues, name: string): boolean {
  return values[name] === true;
}
