import type { Database } from "@/db";

/**
 * The same database, with `beforeTransaction` run before each transaction begins (given
 * the transaction's number, from 1). It can hold a transaction back until the test is
 * ready, or throw to make that transaction fail, so races and failures happen on cue.
 */
export function interceptTransactions(
  database: Database,
  beforeTransaction: (index: number) => void | Promise<void>,
): Database {
  let started = 0;
  const db = new Proxy(database.db, {
    get(target, property) {
      if (property === "transaction") {
        return async (...args: Parameters<typeof target.transaction>) => {
          started += 1;
          await beforeTransaction(started);
          return target.transaction(...args);
        };
      }
      const value = Reflect.get(target, property, target);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
  return { ...database, db };
}
