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

  it("never starts an agent's second run while its first is working; the second waits its turn", async () => {
    const { roomId, agents } = await createTestRoom(database.db, { max_concurrent_runs: 3 });
    const [songwriter, painter] = [
      agents.find((agent) => agent.persona === "songwriter")!,
      agents.find((agent) => agent.persona === "scene-painter")!,
    ];
    const first = await startAgentRun(database.db, roomId, { agentId: songwriter.id, prompt: "One" }, alice);
    const second = await startAgentRun(database.db, roomId, { agentId: songwriter.id, prompt: "Two" }, alice);
    const other = await startAgentRun(database.db, roomId, { agentId: painter.id, prompt: "Paint" }, alice);
    const claim = () => claimNextRun(database.db, { owner: "worker", leaseMs: 60_000 });
    expect((await claim())?.id).toBe(first.id);
    expect((await claim())?.id).toBe(other.id);
    expect(await claim()).toBeNull();
    await database.db.update(runs).set({ status: "succeeded", finishedAt: new Date() }).where(eq(runs.id, first.id));
    expect((await claim())?.id).toBe(second.id);
  });

  it("takes over a run whose worker died even while it is the agent's only one", async () => {
    const { roomId, agents } = await createTestRoom(database.db);
    const run = await startAgentRun(database.db, roomId, { agentId: agents[0]!.id }, alice);
    expect((await claimNextRun(database.db, { owner: "dead-worker", leaseMs: 60_000 }))?.id).toBe(run.id);
    await database.db
      .update(runs)
      .set({ leaseExpiresAt: new Date(Date.now() - 1000) })
      .where(eq(runs.id, run.id));
    expect((await claimNextRun(database.db, { owner: "next-worker", leaseMs: 60_000 }))?.id).toBe(run.id);
  });
});
