import { afterAll, beforeAll } from "vitest";
import type { Database } from "@/db";
import { type TestDatabase, createTestDatabase } from "./test-database";

/**
 * A fresh PostgreSQL database for one test file, with two connection pools on it that stand for two app
 * instances: each has connections of its own, so nothing they do is serialised by sharing one. Call at the
 * top of a `*.pg.test.ts` file, then use `context.database` and `context.instances` inside the tests.
 */
export function useTwoInstances() {
  const context = {} as { database: TestDatabase; instances: [Database, Database] };
  beforeAll(async () => {
    context.database = await createTestDatabase();
    context.instances = [context.database, await context.database.connectAgain()];
  });
  afterAll(async () => {
    await context.database.destroy();
  });
  return context;
}
