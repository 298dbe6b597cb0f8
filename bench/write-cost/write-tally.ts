/** Counts what committed transactions write: keys, bytes (key plus value) and keys per family of key-layout.ts. */
import { classifyStateKey } from '../../src/queue/layout/key-family.js';
import type { TxnWrite } from '../../src/storage/txn.js';

export class WriteTally {
  keys = 0;
  bytes = 0;
  readonly byFamily = new Map<string, number>();

  add(writes: readonly TxnWrite[]): void {
    for (const write of writes) {
      this.keys++;
      this.bytes += write.key.byteLength + (write.kind === 'put' ? write.value.byteLength : 0);
      const family = `${write.kind === 'put' ? '+' : '-'}${classifyStateKey(write.key).family}`;
      this.byFamily.set(family, (this.byFamily.get(family) ?? 0) + 1);
    }
  }

  reset(): void {
    this.keys = 0;
    this.bytes = 0;
    this.byFamily.clear();
  }
}
