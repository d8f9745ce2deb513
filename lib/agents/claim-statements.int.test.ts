import { drizzle as drizzlePglite } from "drizzle-orm/pglite";
import { drizzle as drizzlePostgres } from "drizzle-orm/postgres-js";
import { and, eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Db } from "@/db";
import { agents as agentRows, events, vaultTasks } from "@/db/schema";
import { withCause } from "@/lib/events/cause";
import { alice, createTestRoom } from "@/test/fixtures";
import { type TestDatabase, createTestDatabase, testDriver } from "@/test/test-database";
import { claimNextRun } from "./claim-run";
import { finishRun } from "./finish-run";
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

describe("an agent run's writes", () => {
  it("claim a run in a fixed, small number of statements", async () => {
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

  // On PostgreSQL a room write runs on a connection of its own (pipelined), which this count
  // cannot see; PGlite runs the same statements through Drizzle's transaction.
  it.skipIf(testDriver() === "postgres")("finish a run in a fixed, small number of statements", async () => {
    const { roomId, agents } = await createTestRoom(database.db);
    await startAgentRun(database.db, roomId, { agentId: agents[0]!.id }, alice);
    const run = (await claimNextRun(database.db, { owner: "worker", leaseMs: 60_000 }))!;
    const actor = { id: agents[0]!.id, name: agents[0]!.name };
    const seen: string[] = [];

    const finished = await withCause(run.causeEventId, () =>
      finishRun(counting(seen), run, actor, { status: "succeeded", error: null, durationMs: 5 }, "worker"),
    );

    expect(finished).toBe(true);
    // The room's lock, the run's end, its saved steps forgotten, the vault's lock with the agent's
    // identity, the task recorded and the vault trimmed, the look for waiting messages and open
    // questions, and run.finished (it wrote nothing, so nothing of it goes on the canvas).
    expect(seen).toHaveLength(9);
    const [task] = await database.db.select().from(vaultTasks).where(eq(vaultTasks.runId, run.id));
    const [member] = await database.db.select({ identity: agentRows.identity }).from(agentRows).where(eq(agentRows.id, run.agentId));
    expect(task).toMatchObject({ identity: member!.identity, outcome: "done" });
  });
});
