import type { Database } from "@/db";

/**
 * The same database, with `beforeTransaction` run before each transaction begins (given
 * the transaction's number, from 1). It can hold a transaction back until the test is
 * ready, or throw to make that transaction fail, so races and failures happen on cue.
 * `settled()` resolves once every transaction begun through it has finished.
 */
export function interceptTransactions(
  database: Database,
  beforeTransaction: (index: number) => void | Promise<void>,
): Database & { settled(): Promise<void> } {
  let started = 0;
  const inFlight = new Set<Promise<unknown>>();
  const db = new Proxy(database.db, {
    get(target, property) {
      if (property === "transaction") {
        return (...args: Parameters<typeof target.transaction>) => {
          started += 1;
          const index = started;
          const run = (async () => {
            await beforeTransaction(index);
            return target.transaction(...args);
          })();
          const tracked = run.catch(() => {}).finally(() => inFlight.delete(tracked));
          inFlight.add(tracked);
          return run;
        };
      }
      const value = Reflect.get(target, property, target);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
  return {
    ...database,
    db,
    async settled() {
      while (inFlight.size > 0) await Promise.all(inFlight);
    },
  };
}
