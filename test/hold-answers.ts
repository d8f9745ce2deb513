import type { Database } from "@/db";

/**
 * The same database, as seen by a client whose answers can be held back: while `hold()` is
 * in force, every answer that comes back (a query's rows, a transaction's result, an error)
 * waits for `release()` before the caller sees it. The database itself has done the work;
 * only the caller learns of it late, as when the network or the database is slow.
 * Statements inside a transaction are held too.
 */
export function holdAnswers(database: Database) {
  let held: Promise<void> | null = null;
  let releaseHeld = () => {};
  let waiting = 0;

  const pass = async <T>(answer: Promise<T>): Promise<T> => {
    const settled = await answer.then(
      (value) => ({ ok: true as const, value }),
      (error: unknown) => ({ ok: false as const, error }),
    );
    if (held) {
      waiting += 1;
      await held;
      waiting -= 1;
    }
    if (!settled.ok) throw settled.error;
    return settled.value;
  };

  const slow = <T extends object>(target: T): T =>
    new Proxy(target, {
      get(object, property) {
        const value = Reflect.get(object, property, object) as unknown;
        if (typeof value !== "function") return value;
        if (property === "then") {
          return (onFulfilled?: (value: unknown) => unknown, onRejected?: (error: unknown) => unknown) =>
            pass(Promise.resolve(object as PromiseLike<unknown>)).then(onFulfilled, onRejected);
        }
        if (property === "transaction") {
          return (work: (tx: object) => Promise<unknown>, ...rest: unknown[]) =>
            pass(value.call(object, (tx: object) => work(slow(tx)), ...rest) as Promise<unknown>);
        }
        return (...args: unknown[]) => {
          const result = value.apply(object, args) as unknown;
          return result !== null && typeof result === "object" ? slow(result) : result;
        };
      },
    });

  return {
    database: { ...database, db: slow(database.db) } as Database,
    hold() {
      held ??= new Promise<void>((resolve) => {
        releaseHeld = resolve;
      });
    },
    release() {
      held = null;
      releaseHeld();
    },
    /** How many answers are waiting for `release()`. */
    get waiting() {
      return waiting;
    },
  };
}
