import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runs } from "@/db/schema";
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

describe("claimNextRun", () => {
  it("finds a room with a free slot behind many rooms that are full", async () => {
    const full = [];
    for (let index = 0; index < 25; index += 1) {
      const { roomId, agents } = await createTestRoom(database.db, { max_concurrent_runs: 1 });
      for (const agent of agents.slice(0, 2)) await startAgentRun(database.db, roomId, { agentId: agent.id }, alice);
      full.push(roomId);
    }
    for (const roomId of full) {
      const claimed = await claimNextRun(database.db, { owner: "busy-worker", leaseMs: 60_000 });
      expect(claimed?.roomId).toBe(roomId);
    }

    const { roomId: waiting, agents } = await createTestRoom(database.db, { max_concurrent_runs: 1 });
    const run = await startAgentRun(database.db, waiting, { agentId: agents[0]!.id }, alice);
    const claimed = await claimNextRun(database.db, { owner: "idle-worker", leaseMs: 60_000 });
    expect(claimed?.id).toBe(run.id);

    expect(await claimNextRun(database.db, { owner: "idle-worker", leaseMs: 60_000 })).toBeNull();
    const backlog = await database.db.select().from(runs).where(eq(runs.status, "queued"));
    expect(backlog).toHaveLength(25);
  });
});
