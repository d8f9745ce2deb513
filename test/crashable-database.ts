import { randomBytes } from "node:crypto";
import { sql } from "drizzle-orm";
import { type Database, openPostgres } from "@/db/client";
import type { TestDatabase } from "./test-database";

export interface CrashableDatabase extends Database {
  /**
   * The process dies: from now on nothing it asks of the database is answered, and nothing is
   * sent — no query, transaction, heartbeat, flush or claim. Its promises never settle, so no
   * code of its own runs on its way out. On PostgreSQL its connections are also ended on the
   * server, which rolls back a transaction it still had open, as for a process that was killed.
   */
  crash(): Promise<void>;
  readonly crashed: boolean;
  /**
   * Runs before each transaction the process begins (Drizzle's, and on PostgreSQL each room
   * write, which reserves a connection of its own), while it is still alive: a test can crash
   * the process there, so that the transaction never begins.
   */
  beforeTransaction?: () => void | Promise<void>;
  /** Lets go of what the dead process held here (its own pool on PostgreSQL). */
  close(): Promise<void>;
}

const NEVER = new Promise<never>(() => {});

/** A postgres.js query of a dead process: never sent, never answered, whatever is asked of it. */
const DEAD_QUERY: object = new Proxy(NEVER, {
  get: (target, property) =>
    property === "then" || property === "catch" || property === "finally"
      ? Reflect.get(target, property, target).bind(target)
      : () => DEAD_QUERY,
});

/** Whether `value` may be a query, or build one, that Drizzle sends once it is awaited (not a promise already under way). */
function mayBuildQuery(value: unknown): value is object {
  return typeof value === "object" && value !== null && !(value instanceof Promise);
}

/** A connection string whose connections name themselves `name` on the server (it wins over the pool's own name). */
function withApplicationName(url: string, name: string): string {
  const named = new URL(url);
  named.searchParams.set("application_name", name);
  return named.toString();
}

/**
 * The database as one worker process sees it, for tests that kill that process: on PGlite the
 * same database (a process and its embedded database cannot die apart, so a transaction already
 * under way still ends), on PostgreSQL a pool of its own, whose connections `crash` ends.
 */
export async function crashableDatabase(database: TestDatabase): Promise<CrashableDatabase> {
  const name = `parley-crashing-${randomBytes(4).toString("hex")}`;
  const own = database.driver === "postgres" ? await openPostgres({ url: withApplicationName(database.url!, name), max: 6 }) : null;
  const source = own ?? database;
  const state = { crashed: false };

  const held = async <T>(begin: () => Promise<T>): Promise<T> => {
    await crashing.beforeTransaction?.();
    if (state.crashed) return NEVER;
    return begin();
  };

  /** Queries built on `target` are sent only while the process is alive. */
  const guarded = <T extends object>(target: T): T =>
    new Proxy(target, {
      get(inner, property) {
        const value: unknown = Reflect.get(inner, property, inner);
        if (typeof value !== "function") return value;
        if (property === "then") {
          return (resolve: (result: unknown) => unknown, reject: (error: unknown) => unknown) =>
            state.crashed ? NEVER.then(resolve, reject) : value.call(inner, resolve, reject);
        }
        if (property === "$client") return client(value);
        if (property === "transaction") {
          return (...args: unknown[]) => held(() => value.apply(inner, args) as Promise<unknown>);
        }
        return (...args: unknown[]) => {
          if (state.crashed && property === "execute") return NEVER;
          const result = value.apply(inner, args);
          return mayBuildQuery(result) ? guarded(result) : result;
        };
      },
    });

  /**
   * postgres.js's client, whose reserved connections carry room writes: reserved only while the
   * process is alive, and sending nothing once it is dead (a write under way stops there).
   */
  const client = <T extends object>(target: T): T =>
    new Proxy(target, {
      get(inner, property) {
        const value: unknown = Reflect.get(inner, property, inner);
        if (typeof value !== "function") return value;
        if (property === "reserve") return () => held(async () => client(await (value as () => Promise<object>).call(inner)));
        if (property === "unsafe") return (...args: unknown[]) => (state.crashed ? DEAD_QUERY : value.apply(inner, args));
        return value.bind(inner);
      },
    });

  const crashing: CrashableDatabase = {
    driver: source.driver,
    db: guarded(source.db),
    listen: (channel, onMessage, onListen) => source.listen(channel, (payload) => state.crashed || onMessage(payload), onListen),
    get crashed() {
      return state.crashed;
    },
    async crash() {
      state.crashed = true;
      if (own) {
        await database.db.execute(sql`select pg_terminate_backend(pid) from pg_stat_activity where application_name = ${name}`);
      }
    },
    async close() {
      await own?.close().catch(() => {});
    },
  };
  return crashing;
}
