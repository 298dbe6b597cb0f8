import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

export const repoRoot = fileURLToPath(new URL('../../', import.meta.url));
/**
 * The repository's SQS model in botocore's layout (model/botocore, written from model/sqs-shapes.json
 * by `npm run botocore-model`): as AWS_DATA_PATH it makes Debian's boto3 speak JSON.
 */
export const botocoreDataPath = fileURLToPath(new URL('../../model/botocore', import.meta.url));
export const pythonPath = '/usr/bin/python3';
export const awsCliPath = '/usr/bin/aws';

export function hasDebianPython(): boolean {
  return existsSync(pythonPath);
}

/** Environment for an AWS client process: dummy credentials and region, nothing from the host's AWS config. */
export function awsClientEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {
    PATH: '/usr/bin:/bin',
    HOME: process.env['HOME'] ?? '/tmp',
    AWS_ACCESS_KEY_ID: 'AKIDRAFTQTEST',
    AWS_SECRET_ACCESS_KEY: 'raftq-test-secret',
    AWS_DEFAULT_REGION: 'us-east-1',
    AWS_REGION: 'us-east-1',
    AWS_CONFIG_FILE: '/dev/null',
    AWS_SHARED_CREDENTIALS_FILE: '/dev/null',
    AWS_PAGER: '',
    AWS_EC2_METADATA_DISABLED: 'true',
    PYTHONDONTWRITEBYTECODE: '1',
    ...extra,
  };
  return env;
}

export interface ProcessResult {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs a process to completion (bounded), collecting its output. */
export function runProcess(
  command: string,
  args: readonly string[],
  options: { env: NodeJS.ProcessEnv; cwd?: string; input?: string; timeoutMs?: number },
): Promise<ProcessResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, {
      env: options.env,
      cwd: options.cwd ?? repoRoot,
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 120_000);
    child.on('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
    child.stdin.end(options.input ?? '');
  });
}
