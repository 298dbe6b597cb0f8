import type { ReadView, TxnExecutor } from '../../../src/storage/txn.js';

type ScanOptions = Parameters<ReadView['scan']>[1];

/**
 * The executor as another node of the same state would use it, whose read views run `beforeScan`
 * (awaited) before every scan: what a test needs to hold, or time, a queue index build's pages.
 */
export function scanHookedExecutor(
  executor: TxnExecutor,
  beforeScan: (options: ScanOptions) => Promise<void> | void,
): TxnExecutor {
  const wrapView = (view: ReadView): ReadView => ({
    ...view,
    get: (key) => view.get(key),
    getMany: (keys) => view.getMany(keys),
    release: () => view.release(),
    scan: async (range, options) => {
      await beforeScan(options);
      return view.scan(range, options);
    },
  });
  return new Proxy(executor, {
    get(target, property, receiver) {
      if (property === 'readView')
        return async (options: Parameters<TxnExecutor['readView']>[0]) => wrapView(await target.readView(options));
      const value = Reflect.get(target, property, receiver) as unknown;
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
}
