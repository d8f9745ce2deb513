import path from "node:path";
import { dataDir, getEnv } from "@/lib/env";
import { type Database, migrateDatabase, openPglite, openPostgres } from "./client";
import { lockDataDirectory } from "./directory-lock";

export type { Database, Db, DbOrTx, Tx } from "./client";

const globalForDb = globalThis as unknown as { __parleyDatabase?: Promise<Database> };

async function openFromEnv(): Promise<Database> {
  const env = getEnv();
  if (env.DATABASE_URL) {
    const database = await openPostgres({ url: env.DATABASE_URL });
    await migrateDatabase(database);
    return database;
  }
  const directory = path.join(dataDir(env), "pglite");
  lockDataDirectory(dataDir(env));
  const database = await openPglite({ dataDir: directory });
  await migrateDatabase(database);
  return database;
}

/**
 * The process-wide database, opened and migrated once on first use: PostgreSQL when
 * `DATABASE_URL` is set, otherwise the embedded PGlite under the data directory.
 * Cached on `globalThis` so hot reload and separately bundled routes share one handle.
 */
export function getDatabase(): Promise<Database> {
  if (!globalForDb.__parleyDatabase) {
    globalForDb.__parleyDatabase = openFromEnv().catch((error) => {
      globalForDb.__parleyDatabase = undefined;
      throw error;
    });
  }
  return globalForDb.__parleyDatabase;
}
