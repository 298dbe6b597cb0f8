import { readFileSync } from 'node:fs';
import { RaftqError } from '../base/errors.js';

/**
 * The `--credentials-file` of `raftq serve`: `{"credentials": [{"accessKeyId", "secretAccessKey"}]}`.
 * Read once at start; a malformed file stops the node rather than silently accepting everyone.
 */
export class CredentialsFileError extends RaftqError {
  readonly code = 'CredentialsFileInvalid';

  constructor(
    readonly path: string,
    reason: string,
    options?: { cause?: unknown },
  ) {
    super(`Credentials file ${path} is invalid: ${reason}`, options);
  }
}

/** Access key id → secret access key. */
export type CredentialStore = ReadonlyMap<string, string>;

export function loadCredentialsFile(path: string): CredentialStore {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    throw new CredentialsFileError(path, (err as Error).message, { cause: err });
  }
  return parseCredentials(text, path);
}

export function parseCredentials(text: string, path = '<inline>'): CredentialStore {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (err) {
    throw new CredentialsFileError(path, `not JSON (${(err as Error).message})`, { cause: err });
  }
  const list = (parsed as { credentials?: unknown } | null)?.credentials;
  if (!Array.isArray(list) || list.length === 0)
    throw new CredentialsFileError(path, 'expected a non-empty "credentials" array');
  const store = new Map<string, string>();
  list.forEach((entry: unknown, index: number) => {
    const { accessKeyId, secretAccessKey } = (entry ?? {}) as { accessKeyId?: unknown; secretAccessKey?: unknown };
    if (
      typeof accessKeyId !== 'string' ||
      accessKeyId === '' ||
      typeof secretAccessKey !== 'string' ||
      secretAccessKey === ''
    ) {
      throw new CredentialsFileError(
        path,
        `credentials[${index}] needs non-empty string accessKeyId and secretAccessKey`,
      );
    }
    if (store.has(accessKeyId)) throw new CredentialsFileError(path, `access key id ${accessKeyId} appears twice`);
    store.set(accessKeyId, secretAccessKey);
  });
  return store;
}
