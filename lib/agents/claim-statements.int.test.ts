import { drizzle as drizzlePglite } from "drizzle-orm/pglite";
import { drizzle as drizzlePostgres } from "drizzle-orm/postgres-js";
import { and, eq } from "drizzle-orm";
import postgres, { type Sql } from "postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Db } from "@/db";
import { agents as agentRows, events, vaultTasks } from "@/db/schema";
import { withCause } from "@/lib/events/cause";
import { alice, createTestRoom } from "@/test/fixtures";
import { type TestDatabase, createTestDatabase } from "@/test/test-database";
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

const opened: Sql[] = [];
afterAll(async () => {
  await Promise.all(opened.map((client) => client.end({ timeout: 5 })));
});

/**
 * The same database, telling `seen` of every statement sent through it (BEGIN and COMMIT aside).
 * On PostgreSQL a room write runs on a connection of its own, outside Drizzle's logger, so the
 * count comes from a client of its own that reports every query it sends, on any connection.
 */
function counting(seen: string[]): Db {
  if (database.driver === "postgres") {
    const client = postgres(database.url!, {
      max: 4,
      onnotice: () => {},
      debug: (_connection, query) => {
        // The pool's own look-up of array types, as it connects, is no statement of Parley's.
        if (!/^\s*(begin|commit)\s*$/i.test(query) && !query.includes("pg_catalog.pg_type")) seen.push(query);
      },
    });
    opened.push(client);
    return drizzlePostgres({ client }) as unknown as Db;
  }
  const client = (database.db as unknown as { $client: never }).$client;
  return drizzlePglite({ client, logger: { logQuery: (query: string) => seen.push(query) } }) as unknown as Db;
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

  it("finish a run in a fixed, small number of statements", async () => {
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
