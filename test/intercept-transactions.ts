import type { Database } from "@/db";

/**
 * The same database, with `beforeTransaction` run before each transaction begins (given
 * the transaction's number, from 1): Drizzle's own transactions, and room writes, which on
 * PostgreSQL reserve a connection of their own for a pipelined transaction. It can hold a
 * transaction back until the test is ready, or throw to make that transaction fail, so races
 * and failures happen on cue. `settled()` resolves once every transaction begun through it
 * has finished.
 */
export function interceptTransactions(
  database: Database,
  beforeTransaction: (index: number) => void | Promise<void>,
): Database & { settled(): Promise<void> } {
  let started = 0;
  const inFlight = new Set<Promise<unknown>>();
  /** Runs `begin` once the test lets the transaction start; it is in flight until `ended` settles. */
  const intercept = <T>(begin: () => Promise<T>, ended: (run: Promise<T>) => Promise<unknown> = (run) => run): Promise<T> => {
    started += 1;
    const index = started;
    const run = (async () => {
      await beforeTransaction(index);
      return begin();
    })();
    const tracked = ended(run)
      .catch(() => {})
      .finally(() => inFlight.delete(tracked));
    inFlight.add(tracked);
    return run;
  };
  /** A reserved connection whose write has ended once it is given back. */
  const reserving = (reserve: () => Promise<{ release(): void }>) => {
    let released!: () => void;
    const done = new Promise<void>((resolve) => (released = resolve));
    return intercept(
      async () => {
        const connection = await reserve();
        return new Proxy(connection, {
          get: (inner, name) =>
            name === "release"
              ? () => {
                  inner.release();
                  released();
                }
              : bound(inner, name),
        });
      },
      (run) => run.then(() => done),
    );
  };
  const bound = (target: object, property: string | symbol) => {
    const value = Reflect.get(target, property, target);
    return typeof value === "function" ? value.bind(target) : value;
  };
  const db = new Proxy(database.db, {
    get(target, property) {
      if (property === "transaction") {
        return (...args: Parameters<typeof target.transaction>) => intercept(() => target.transaction(...args));
      }
      if (property === "$client") {
        const client = Reflect.get(target, property, target) as ((...args: unknown[]) => unknown) & { reserve?: unknown };
        if (typeof client.reserve !== "function") return client;
        return new Proxy(client, {
          get: (inner, name) =>
            name === "reserve"
              ? () => reserving(() => (inner.reserve as () => Promise<{ release(): void }>).call(inner))
              : bound(inner, name),
        });
      }
      return bound(target, property);
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
