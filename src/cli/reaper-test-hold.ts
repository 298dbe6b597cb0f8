/**
 * A hook for tests only: holds the leader's reaper after a given number of sweeps, so that a test
 * can stop it at a known point (one chunk into a purged generation, say), kill the leader there and
 * let the next leader finish, instead of racing the reaper's tick.
 *
 * Enabled only when `RAFTQ_TEST_REAPER_SWEEPS_FILE` names a file. Before each tick the node reads
 * it: a number N lets this process complete at most N sweeps in all (0 holds the reaper); no file,
 * or anything but a number, lets it run freely. Operators never set it.
 */
import { readFileSync } from 'node:fs';

export const reaperTestHoldEnv = 'RAFTQ_TEST_REAPER_SWEEPS_FILE';

export interface ReaperTestHold {
  /** Whether the next sweep may run. */
  allowsSweep(): boolean;
  /** Counts a sweep that ran to its end. */
  noteSweep(): void;
}

export function reaperTestHoldFromEnv(env: NodeJS.ProcessEnv): ReaperTestHold | undefined {
  const file = env[reaperTestHoldEnv];
  if (file === undefined || file === '') return undefined;
  let sweeps = 0;
  return {
    allowsSweep: () => {
      const sweepsMax = readSweepsMax(file);
      return sweepsMax === undefined || sweeps < sweepsMax;
    },
    noteSweep: () => {
      sweeps++;
    },
  };
}

function readSweepsMax(file: string): number | undefined {
  let text: string;
  try {
    text = readFileSync(file, 'utf8').trim();
  } catch {
    return undefined;
  }
  return /^\d+$/.test(text) ? Number(text) : undefined;
}
