import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type TestDatabase, createTestDatabase } from "@/test/test-database";
import { adminActionsQuerySchema, listAdminActions } from "./admin-actions";

let database: TestDatabase;

beforeAll(async () => {
  database = await createTestDatabase();
});
afterAll(async () => {
  await database.destroy();
});

describe("the audit trail's pages", () => {
  it("list changes made a microsecond apart once each, in order, however small the page", async () => {
    // Ids against the times' order, so that only the times can order the rows right.
    for (const [id, micros] of [
      ["c", 1],
      ["b", 2],
      ["a", 3],
    ] as const) {
      await database.db.execute(sql`
        insert into admin_actions (id, at, actor, action, summary)
        values (${id}, '2026-11-25T09:18:24.123000Z'::timestamptz + ${micros} * interval '1 microsecond', 'admin', 'room.updated', ${`change ${id}`})`);
    }
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const query = adminActionsQuerySchema.parse({ limit: "1", ...(cursor ? { cursor } : {}) });
      const page = await listAdminActions(database.db, query);
      seen.push(...page.items.map((action) => action.id));
      cursor = page.nextCursor;
    } while (cursor && seen.length < 10);
    expect(seen).toEqual(["a", "b", "c"]);
  });
});
