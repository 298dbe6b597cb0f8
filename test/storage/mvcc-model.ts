import type { KeyRange, KeyValue } from '../../src/storage/txn.js';
import { compareBytes } from '../../src/storage/key-codec.js';
import { hex } from './engine-contract.js';

/** Every version ever written, by hex key: the simplest model of an MVCC store. */
export class MvccModel {
  private readonly versions = new Map<string, Array<{ commitTsUs: number; value: Uint8Array | undefined }>>();
  private readonly keys = new Map<string, Uint8Array>();

  write(key: Uint8Array, commitTsUs: number, value: Uint8Array | undefined): void {
    const k = hex(key);
    this.keys.set(k, key);
    const list = this.versions.get(k) ?? [];
    const last = list[list.length - 1];
    if (last !== undefined && last.commitTsUs === commitTsUs) list[list.length - 1] = { commitTsUs, value };
    else list.push({ commitTsUs, value });
    this.versions.set(k, list);
  }

  getAt(key: Uint8Array, ts: number): Uint8Array | undefined {
    const list = this.versions.get(hex(key)) ?? [];
    let visible: Uint8Array | undefined;
    for (const v of list) if (v.commitTsUs <= ts) visible = v.value;
    return visible;
  }

  latestCommitTs(key: Uint8Array): number | undefined {
    const list = this.versions.get(hex(key)) ?? [];
    return list[list.length - 1]?.commitTsUs;
  }

  scanAt(range: KeyRange, ts: number, limit: number, reverse: boolean): KeyValue[] {
    const rows: KeyValue[] = [];
    const sorted = [...this.keys.values()]
      .filter((k) => compareBytes(k, range.gte) >= 0 && compareBytes(k, range.lt) < 0)
      .sort(compareBytes);
    if (reverse) sorted.reverse();
    for (const key of sorted) {
      const value = this.getAt(key, ts);
      if (value !== undefined) rows.push({ key, value });
      if (rows.length >= limit) break;
    }
    return rows;
  }

  allKeys(): Uint8Array[] {
    return [...this.keys.values()];
  }
}
