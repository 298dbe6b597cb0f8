/**
 * Ids for messages, receipt tokens and transactions that sort by the time they were minted: UUIDs
 * of version 7 (RFC 9562), a 48-bit Unix millisecond timestamp first, then a 12-bit counter,
 * then 62 random bits, printed in the usual 8-4-4-4-12 hex form.
 *
 * Why the order matters: a message's data and state rows are keyed by its id, and so is a
 * transaction's row in the txn-id table. With random ids every send writes, and every receive
 * reads, at a random place in a keyspace that can hold a million messages, so LevelDB's block
 * cache holds little of what the next read wants and every flushed table overlaps every other
 * one and must be merged. Ids in minting order put the rows of messages sent together side by
 * side, in the order a standard queue delivers them.
 *
 * The ids stay unguessable (62 random bits, more than a receipt handle needs to resist guessing
 * for its visibility timeout) and unique: within one millisecond the counter orders a process's
 * ids, and two processes differ in their random bits. Ids from one minter always increase, even
 * when its clock goes back (the last millisecond is kept until the clock passes it), and a counter
 * that runs out within a millisecond moves on to the next one.
 */
import { Buffer } from 'node:buffer';
import type { Clock } from './clock.js';

/** Fills its argument with cryptographically strong random bytes (node:crypto's randomFillSync). */
export type RandomFill = (bytes: Uint8Array) => void;

const counterMax = 0xfff;
/** Random bytes fetched at once: one system call per 512 ids. */
const randomPoolBytes = 4_096;
const randomBytesPerId = 8;

export class TimeOrderedIds {
  private lastMs = -1;
  private counter = 0;
  private readonly pool = new Uint8Array(randomPoolBytes);
  private poolAt = randomPoolBytes;

  constructor(
    private readonly clock: Clock,
    private readonly fillRandom: RandomFill,
  ) {}

  next(): string {
    const nowMs = Math.max(0, Math.floor(this.clock.nowMs()));
    if (nowMs > this.lastMs) {
      this.lastMs = nowMs;
      this.counter = 0;
    } else if (this.counter < counterMax) this.counter++;
    else {
      this.lastMs++;
      this.counter = 0;
    }
    if (this.poolAt + randomBytesPerId > randomPoolBytes) {
      this.fillRandom(this.pool);
      this.poolAt = 0;
    }
    const random = this.pool.subarray(this.poolAt, this.poolAt + randomBytesPerId);
    this.poolAt += randomBytesPerId;
    return formatUuidV7(this.lastMs, this.counter, random);
  }
}

/** The id's 16 bytes, printed by one native hex call: half the time of building it from 2-digit strings (1.0 → 0.5 µs). */
const idBytes = Buffer.alloc(16);

/** The 8-4-4-4-12 form of a version-7 UUID: `ms` (48 bits), `counter` (12 bits), 62 bits of `random`. */
export function formatUuidV7(ms: number, counter: number, random: Uint8Array): string {
  // A typed array keeps the low 8 bits of the integer part of what it is given.
  idBytes[0] = ms / 2 ** 40;
  idBytes[1] = ms / 2 ** 32;
  idBytes[2] = ms >>> 24;
  idBytes[3] = ms >>> 16;
  idBytes[4] = ms >>> 8;
  idBytes[5] = ms;
  // Version 7 in the high nibble of the seventh byte; variant 0b10 in the top bits of the ninth.
  idBytes[6] = 0x70 | (counter >>> 8);
  idBytes[7] = counter;
  idBytes[8] = 0x80 | ((random[0] as number) & 0x3f);
  for (let i = 1; i < 8; i++) idBytes[8 + i] = random[i] as number;
  const hex = idBytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
