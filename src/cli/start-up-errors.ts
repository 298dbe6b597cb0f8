/**
 * What `raftq serve` says when it cannot start, in terms of the flag the operator gave: a port
 * already taken names `--sqs-listen`, `--admin-listen`, `--metrics-listen` or `--raft-listen` and
 * the address; a data directory that is a file or that another node holds names `--data-dir`.
 */
import { DataDirError } from '../cluster/data-dir.js';

/** A start-up failure, already phrased for the person who started the node. */
export class StartUpError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'StartUpError';
  }
}

/** Runs `start`, which listens on `address` (the value of `--flag`); a failure to listen there names both. */
export async function listeningOn<T>(flag: string, address: string, start: () => Promise<T>): Promise<T> {
  try {
    return await start();
  } catch (error) {
    throw listenFailure(flag, address, error) ?? error;
  }
}

/** Runs `open`, which opens the data directory; a DataDirError becomes one naming `--data-dir`. */
export async function openingDataDir<T>(open: () => Promise<T>): Promise<T> {
  try {
    return await open();
  } catch (error) {
    if (error instanceof DataDirError)
      throw new StartUpError(`--data-dir ${error.dataDir}: ${error.reason}`, { cause: error });
    throw error;
  }
}

const listenReasons: Readonly<Record<string, string>> = {
  EADDRINUSE:
    'the address is already in use (EADDRINUSE): another raftq node or another program listens there; stop it, or choose another port',
  EADDRNOTAVAIL: 'no network interface of this machine has that address (EADDRNOTAVAIL)',
  EACCES: 'not allowed to listen there (EACCES): ports below 1024 need privileges',
  ENOTFOUND: 'the host name does not resolve (ENOTFOUND)',
  EAI_AGAIN: 'the host name could not be resolved now (EAI_AGAIN)',
};

/** The StartUpError for a failure to listen, or null when `error` is something else. */
export function listenFailure(flag: string, address: string, error: unknown): StartUpError | null {
  const code = listenErrorCode(error);
  const reason = code === null ? undefined : listenReasons[code];
  return reason === undefined ? null : new StartUpError(`--${flag} ${address}: ${reason}`, { cause: error });
}

/**
 * The errno code of a failed listen. Node's servers set `syscall` ('listen', or 'getaddrinfo' for a
 * name); gRPC's bind failure only carries its cause in the message ("… [listen EADDRINUSE: …]").
 * Other codes (a file that could not be opened) are not about the address and stay unmatched.
 */
function listenErrorCode(error: unknown): string | null {
  if (!(error instanceof Error)) return null;
  const { code, syscall } = error as NodeJS.ErrnoException;
  if ((syscall === 'listen' || syscall === 'getaddrinfo') && typeof code === 'string') return code;
  return /\b(?:listen|getaddrinfo) (E[A-Z_]+)\b/.exec(error.message)?.[1] ?? null;
}
