import postgres from "postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { alice, createTestRoom } from "@/test/fixtures";
import { type TestDatabase, createTestDatabase } from "@/test/test-database";
import { claimNextRun } from "./claim-run";
import { startAgentRun } from "./start-agent-run";

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

// Claims here take any room's runs, so these tests keep a database of their own.
let database: TestDatabase;

beforeAll(async () => {
  database = await createTestDatabase();
});
afterAll(async () => {
  await database.destroy();
});

describe("claiming a run on PostgreSQL", () => {
  it("waits for a room write that will touch the run, instead of deadlocking with it", async () => {
    const { roomId, agents } = await createTestRoom(database.db);
    const run = await startAgentRun(database.db, roomId, { agentId: agents[0]!.id }, alice);
    // Its worker stops renewing the lease: the run is up for claiming again.
    expect((await claimNextRun(database.db, { owner: "stalled", leaseMs: 1 }))?.id).toBe(run.id);
    await sleep(20);

    // The stalled worker saves a step or finishes the run just then: like every room write,
    // it locks the room first and then updates the run.
    const worker = postgres(database.url!, { max: 1, onnotice: () => {} });
    try {
      const saving = worker.begin(async (tx) => {
        await tx`select id from rooms where id = ${roomId} for update`;
        await sleep(300);
        await tx`update runs set steps = steps where id = ${run.id}`;
      });
      await sleep(100);
      const claiming = claimNextRun(database.db, { owner: "fresh", leaseMs: 60_000 });

      const [saved, claimed] = await Promise.allSettled([saving, claiming]);
      expect(saved.status).toBe("fulfilled");
      expect(claimed.status === "fulfilled" ? claimed.value?.id : claimed.reason).toBe(run.id);
    } finally {
      await worker.end();
    }
  });
});
