/**
 * Keys known to have no version at all, exactly: the keys a put vouched new implies
 * (MvccStoreOptions.impliedNewKeys), such as the receive-state rows of queued messages that were
 * never received. A first receive writes such a key, and its validation must know the key's newest
 * version; without this set that is a LevelDB seek for a row that is not there, once per consumed
 * message. A seek of an absent key costs more than one of a present key: an iterator cannot use
 * LevelDB's bloom filters, so it positions in every level.
 *
 * These hints used to live in the newest-version cache, as entries of about 500 bytes that went
 * with their message's data row: a backlog larger than the cache (about 190,000 messages of 256
 * bytes) lost them past its head, and consuming from a million messages then sought one absent
 * key per message. Here the keys sit end to end in one byte arena, found through an
 * open-addressing table of typed arrays: about 100 bytes per state key of 62 bytes, table and
 * growth room included, in two buffers the JavaScript garbage collector never walks (a Set of a
 * million strings took as much memory, and slowed a million-message fill by a quarter, mostly in
 * that collector). The bound (raftqLimits.absentKeysMax) covers a backlog of a million.
 *
 * Exact, as the cache is: a key is added only when a committed write implies it never had a
 * version, and forgotten as soon as any version of it is applied (MvccStore.applyExclusive does
 * both in the same step that moves lastCommitTs, so no read sees the new timestamp and a stale
 * "absent"). Garbage collection only removes versions, so it cannot make a key here wrong. The set
 * belongs to one store: a snapshot install or a restart starts empty, and reads then go to the
 * engine, which gives the same answer. So it changes which reads reach the engine, never what they
 * return or what the apply step decides.
 *
 * When full, a new key is not added: the oldest keys belong to the head of a queue, which is
 * consumed first, and their removal on the first receive makes room for later sends.
 */
import { assert } from '../base/assert.js';
import { keyHashOf } from './key-hash.js';

/** A slot of the table: empty, a removed key (searches go on past it), or arena offset + 1. */
const emptySlot = 0;
const removedSlot = -1;
/** Each key in the arena: its length (two bytes, little-endian), then its bytes. */
const lengthBytes = 2;
const keyBytesMax = 0xffff;
const slotsMin = 1_024;

export class AbsentKeySet {
  private slots = new Int32Array(slotsMin);
  /** The hash of each slot's key, compared before its bytes. */
  private slotHashes = new Int32Array(slotsMin);
  private arena = new Uint8Array(64 * 1_024);
  private arenaUsed = 0;
  /** Arena bytes of removed keys, reclaimed by the next rebuild. */
  private arenaDeadBytes = 0;
  private sizeValue = 0;
  private removedSlots = 0;

  constructor(private readonly keysMax: number) {
    assert(
      Number.isSafeInteger(keysMax) && keysMax >= 0,
      () => `keysMax must be a non-negative integer, got ${keysMax}`,
    );
  }

  get size(): number {
    return this.sizeValue;
  }

  /** Records that `key` has no version (a committed write implies it); ignored when the set is full. */
  add(key: Uint8Array): void {
    if (this.sizeValue >= this.keysMax || key.length > keyBytesMax) return;
    const hash = keyHashOf(key);
    if (this.find(key, hash) >= 0) return;
    if ((this.sizeValue + this.removedSlots + 1) * 2 > this.slots.length) this.rebuild();
    this.place(hash, this.append(key));
    this.sizeValue++;
  }

  /** A version of `key` was applied: it is no longer absent. */
  forget(key: Uint8Array, hash?: number): void {
    if (this.sizeValue === 0) return;
    const slot = this.find(key, hash ?? keyHashOf(key));
    if (slot < 0) return;
    this.slots[slot] = removedSlot;
    this.removedSlots++;
    this.sizeValue--;
    this.arenaDeadBytes += lengthBytes + key.length;
    // Reclaim the arena once most of it is dead (a consumed backlog), so it does not stay at its peak.
    if (this.arenaDeadBytes > 1_048_576 && this.arenaDeadBytes * 2 > this.arenaUsed) this.rebuild();
  }

  /** True only if `key` has no version in the engine. */
  has(key: Uint8Array, hash?: number): boolean {
    return this.sizeValue > 0 && this.find(key, hash ?? keyHashOf(key)) >= 0;
  }

  /** The slot holding `key`, or -1. */
  private find(key: Uint8Array, hash: number): number {
    const mask = this.slots.length - 1;
    for (let slot = hash & mask; ; slot = (slot + 1) & mask) {
      const held = this.slots[slot] as number;
      if (held === emptySlot) return -1;
      if (held !== removedSlot && this.slotHashes[slot] === hash && this.holds(held - 1, key)) return slot;
    }
  }

  private holds(offset: number, key: Uint8Array): boolean {
    const { arena } = this;
    const length = keyLengthIn(arena, offset);
    if (length !== key.length) return false;
    const start = offset + lengthBytes;
    // From the end: keys of one queue share long prefixes and differ in their last bytes.
    for (let i = length - 1; i >= 0; i--) if (arena[start + i] !== key[i]) return false;
    return true;
  }

  /** Puts the key at arena `offset` in the first free slot from its hash (a removed key's slot is free). */
  private place(hash: number, offset: number): void {
    const mask = this.slots.length - 1;
    let slot = hash & mask;
    while (this.slots[slot] !== emptySlot && this.slots[slot] !== removedSlot) slot = (slot + 1) & mask;
    if (this.slots[slot] === removedSlot) this.removedSlots--;
    this.slots[slot] = offset + 1;
    this.slotHashes[slot] = hash;
  }

  /** Copies `key` to the end of the arena (growing it), returning its offset. */
  private append(key: Uint8Array): number {
    const needed = this.arenaUsed + lengthBytes + key.length;
    if (needed > this.arena.length) {
      const grown = new Uint8Array(Math.max(needed, Math.ceil(this.arena.length * 1.5)));
      grown.set(this.arena.subarray(0, this.arenaUsed));
      this.arena = grown;
    }
    const offset = this.arenaUsed;
    this.arena[offset] = key.length & 0xff;
    this.arena[offset + 1] = key.length >>> 8;
    this.arena.set(key, offset + lengthBytes);
    this.arenaUsed = needed;
    return offset;
  }

  /** A table sized for the keys held (at most half full after the next add), and an arena of only them. */
  private rebuild(): void {
    const { slots, slotHashes, arena } = this;
    let capacity = slotsMin;
    while ((this.sizeValue + 1) * 2 > capacity / 2) capacity *= 2;
    this.slots = new Int32Array(capacity);
    this.slotHashes = new Int32Array(capacity);
    this.arena = new Uint8Array(Math.max(64 * 1_024, Math.ceil((this.arenaUsed - this.arenaDeadBytes) * 1.5)));
    this.arenaUsed = 0;
    this.arenaDeadBytes = 0;
    this.removedSlots = 0;
    for (let slot = 0; slot < slots.length; slot++) {
      const held = slots[slot] as number;
      if (held === emptySlot || held === removedSlot) continue;
      const start = held - 1 + lengthBytes;
      const key = arena.subarray(start, start + keyLengthIn(arena, held - 1));
      this.place(slotHashes[slot] as number, this.append(key));
    }
  }
}

/** The length of the key stored at `offset` of an arena. */
function keyLengthIn(arena: Uint8Array, offset: number): number {
  return (arena[offset] as number) | ((arena[offset + 1] as number) << 8);
}
