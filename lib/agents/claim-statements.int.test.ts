import { drizzle as drizzlePglite } from "drizzle-orm/pglite";
import { drizzle as drizzlePostgres } from "drizzle-orm/postgres-js";
import { and, eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Db } from "@/db";
import { events } from "@/db/schema";
import { alice, createTestRoom } from "@/test/fixtures";
import { type TestDatabase, createTestDatabase } from "@/test/test-database";
import { claimNextRun } from "./claim-run";
import { startAgentRun } from "./start-agent-run";

// Claims here take any room's runs, so these tests keep a database of their own.
let database: TestDatabase;

beforeAll(async () => {
  database = await createTestDatabase();
});
afterAll(async () => {
  await database.destroy();
});

/** The same database, telling `seen` of every statement sent through it (BEGIN and COMMIT aside). */
function counting(seen: string[]): Db {
  const client = (database.db as unknown as { $client: never }).$client;
  const logger = { logQuery: (query: string) => seen.push(query) };
  return (database.driver === "postgres" ? drizzlePostgres({ client, logger }) : drizzlePglite({ client, logger })) as unknown as Db;
}

describe("claiming a run", () => {
  it("takes a fixed, small number of statements", async () => {
    const { roomId, agents } = await createTestRoom(database.db);
    const run = await startAgentRun(database.db, roomId, { agentId: agents[0]!.id }, alice);
    const seen: string[] = [];

    const claimed = await claimNextRun(counting(seen), { owner: "worker", leaseMs: 60_000 });

    // The rooms with a free slot, the room's claim lock, the room's row lock with the look for its
    // oldest runnable run, the run's limits, the claim with its agent's name, and run.started.
    expect(seen).toHaveLength(7);
    expect(claimed).toMatchObject({ id: run.id, status: "running", leaseOwner: "worker", attempts: 1 });
    expect(claimed?.startedAt).toBeInstanceOf(Date);
    expect(claimed).not.toHaveProperty("agentName");
    const [started] = await database.db
      .select()
      .from(events)
      .where(and(eq(events.roomId, roomId), eq(events.type, "run.started")));
    expect(started).toMatchObject({ agent: agents[0]!.id, agentName: agents[0]!.name, id: claimed?.causeEventId });
  });
});
