import path from "node:path";
import type { PgDatabase, PgQueryResultHKT } from "drizzle-orm/pg-core";
import type { ReservedSql, Sql } from "postgres";

/**
 * The query surface shared by the PGlite and postgres.js drivers: Drizzle's query builders on
 * the tables in `./schema` (Parley does not use the relational `db.query` API).
 */
export type Db = PgDatabase<PgQueryResultHKT>;
/** An open transaction on `Db`. */
export type Tx = Parameters<Parameters<Db["transaction"]>[0]>[0];
/** Anything queries can run on: the database or an open transaction. */
export type DbOrTx = Db | Tx;

type Driver = "pglite" | "postgres";

/**
 * An open database: the Drizzle handle plus the two things Drizzle does not cover,
 * LISTEN for notifications and closing.
 */
export interface Database {
  readonly db: Db;
  readonly driver: Driver;
  /**
   * Listens on a notification channel. `onListen` runs each time the listener is
   * (re)established, so callers can catch up on anything missed while disconnected.
   */
  listen(channel: string, onMessage: (payload: string) => void, onListen?: () => void): Promise<() => Promise<void>>;
  close(): Promise<void>;
}

export const migrationsFolder = path.join(process.cwd(), "drizzle");

export interface OpenPgliteOptions {
  /** A directory for a durable database; in memory when omitted. */
  dataDir?: string;
}

export async function openPglite(options: OpenPgliteOptions = {}): Promise<Database> {
  const { PGlite } = await import("@electric-sql/pglite");
  const { drizzle } = await import("drizzle-orm/pglite");
  const client = options.dataDir ? new PGlite(options.dataDir) : new PGlite();
  await client.waitReady;
  const db = drizzle({ client }) as unknown as Db;
  return {
    db,
    driver: "pglite",
    async listen(channel, onMessage, onListen) {
      const unlisten = await client.listen(channel, onMessage);
      onListen?.();
      return () => unlisten();
    },
    async close() {
      await client.close();
    },
  };
}

export interface OpenPostgresOptions {
  url: string;
  /** Pool size (at least 2: migrations hold a lock on one connection); LISTEN uses one more. */
  max?: number;
}

export async function openPostgres(options: OpenPostgresOptions): Promise<Database> {
  const { default: postgres } = await import("postgres");
  const { drizzle } = await import("drizzle-orm/postgres-js");
  const sql = postgres(options.url, {
    max: Math.max(2, options.max ?? 10),
    onnotice: () => {},
    connection: { application_name: "parley" },
  });
  const db = drizzle({ client: preparingStatements(sql) }) as unknown as Db;
  return {
    db,
    driver: "postgres",
    async listen(channel, onMessage, onListen) {
      const subscription = await sql.listen(channel, onMessage, onListen);
      return () => subscription.unlisten();
    },
    async close() {
      await sql.end({ timeout: 5 });
    },
  };
}

/**
 * Drizzle sends every query as an unnamed statement unless it was built with `.prepare()`,
 * and postgres.js describes an unnamed statement with parameters before running it: two
 * round trips per query. Named statements, prepared once per connection and reused, take one.
 */
export function preparingStatements<T extends Sql | ReservedSql>(client: T): T {
  const unsafe = client.unsafe.bind(client);
  return Object.assign(client, {
    unsafe: (query: string, parameters?: unknown[], options?: object) => unsafe(query, parameters as never, { ...options, prepare: true }),
  });
}

const MIGRATION_LOCK_KEY = 7_270_539_112;

/**
 * Applies the committed migrations in `drizzle/`. On PostgreSQL an advisory lock makes
 * several instances starting together apply them once.
 */
export async function migrateDatabase(database: Database): Promise<void> {
  if (database.driver === "pglite") {
    const { migrate } = await import("drizzle-orm/pglite/migrator");
    await migrate(database.db as never, { migrationsFolder });
    return;
  }
  const { migrate } = await import("drizzle-orm/postgres-js/migrator");
  const client = (database.db as unknown as { $client: import("postgres").Sql }).$client;
  // The lock is held on its own connection while the pool applies the migrations.
  const reserved = await client.reserve();
  try {
    await reserved`select pg_advisory_lock(${MIGRATION_LOCK_KEY})`;
    await migrate(database.db as never, { migrationsFolder });
  } finally {
    await reserved`select pg_advisory_unlock(${MIGRATION_LOCK_KEY})`.catch(() => {});
    reserved.release();
  }
}
