import { randomBytes } from "node:crypto";
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
  url?: string;
}

/**
 * A fresh, migrated database for one test file: in-memory PGlite, or a new PostgreSQL
 * database cloned from the migrated template when the suite runs on PostgreSQL.
 */
export async function createTestDatabase(): Promise<TestDatabase> {
  if (testDriver() === "pglite") {
    const database = await openPglite();
    await migrateDatabase(database);
    return {
      ...database,
      destroy: () => database.close(),
      connectAgain: () => Promise.reject(new Error("PGlite serves one connection; use PostgreSQL for this test.")),
    };
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
  const open = async (max?: number) => {
    const database = await openPostgres({ url, max });
    opened.push(database);
    return database;
  };
  const database = await open();
  return {
    ...database,
    url,
    connectAgain: () => open(),
    async destroy() {
      for (const handle of opened) await handle.close().catch(() => {});
      const cleanup = postgres(baseUrl, { max: 1, onnotice: () => {} });
      await cleanup.unsafe(`drop database if exists ${name} with (force)`);
      await cleanup.end();
    },
  };
}
