import { randomBytes } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import postgres from "postgres";
import { inject } from "vitest";
import { type Database, migrateDatabase, openPglite, openPostgres } from "@/db/client";
import { assertLocalDatabaseUrl, databaseUrlFor } from "./local-database-url";

export type TestDriver = "pglite" | "postgres";

export function testDriver(): TestDriver {
  return process.env.PARLEY_TEST_DRIVER === "postgres" ? "postgres" : "pglite";
}

export interface TestDatabase extends Database {
  /** Closes the connection and drops the database. */
  destroy(): Promise<void>;
  /** Opens another, independent connection to the same database (PostgreSQL only). */
  connectAgain(): Promise<Database>;
  /**
   * Closes this handle and opens the same data again, as a server does when it restarts:
   * PGlite reopens its data directory, PostgreSQL gets a new connection pool. Use the handle
   * it returns from then on. Only for databases created with `{ durable: true }`.
   */
  reopen(): Promise<TestDatabase>;
  url?: string;
}

export interface TestDatabaseOptions {
  /** Keep PGlite's data in a directory, so `reopen` finds it again (in memory otherwise). */
  durable?: boolean;
}

/**
 * A fresh, migrated database for one test file: PGlite (in memory, or in a temporary
 * directory when durable), or a new PostgreSQL database cloned from the migrated template
 * when the suite runs on PostgreSQL.
 */
export async function createTestDatabase(options: TestDatabaseOptions = {}): Promise<TestDatabase> {
  if (testDriver() === "pglite") {
    if (!options.durable) {
      const database = await openPglite();
      await migrateDatabase(database);
      return {
        ...database,
        destroy: () => database.close(),
        connectAgain: () => Promise.reject(new Error("PGlite serves one connection; use PostgreSQL for this test.")),
        reopen: () => Promise.reject(new Error("An in-memory database cannot be reopened; create it with { durable: true }.")),
      };
    }
    const dataDir = await mkdtemp(path.join(os.tmpdir(), "parley-test-"));
    const open = async (): Promise<TestDatabase> => {
      const database = await openPglite({ dataDir });
      return {
        ...database,
        async destroy() {
          await database.close().catch(() => {});
          await rm(dataDir, { recursive: true, force: true });
        },
        connectAgain: () => Promise.reject(new Error("PGlite serves one connection; use PostgreSQL for this test.")),
        async reopen() {
          await database.close();
          return open();
        },
      };
    };
    const database = await open();
    await migrateDatabase(database);
    return database;
  }
  const baseUrl = process.env.DATABASE_URL!;
  assertLocalDatabaseUrl(baseUrl);
  const template = inject("templateDatabase");
  const name = `parley_test_${randomBytes(6).toString("hex")}`;
  const admin = postgres(baseUrl, { max: 1, onnotice: () => {} });
  await admin.unsafe(`create database ${name} template ${template}`);
  await admin.end();
  const url = databaseUrlFor(baseUrl, name);
  const opened: Database[] = [];
  const connect = async (max?: number) => {
    const database = await openPostgres({ url, max });
    opened.push(database);
    return database;
  };
  const handle = (database: Database): TestDatabase => ({
    ...database,
    url,
    connectAgain: () => connect(),
    async reopen() {
      await database.close();
      return handle(await connect());
    },
    async destroy() {
      for (const each of opened) await each.close().catch(() => {});
      const cleanup = postgres(baseUrl, { max: 1, onnotice: () => {} });
      // Give connections that are still closing a second to go: one cut by the drop while it
      // is still opening makes postgres.js reject a promise that nobody holds.
      for (let waited = 0; waited < 50; waited++) {
        const [row] = await cleanup<{ count: number }[]>`select count(*)::int as count from pg_stat_activity where datname = ${name}`;
        if (!row?.count) break;
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      await cleanup.unsafe(`drop database if exists ${name} with (force)`);
      await cleanup.end();
    },
  });
  return handle(await connect());
}
