import { type SQL, eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { runs } from "@/db/schema";
import { readEventsAfter } from "@/lib/events/read-events";
import { agentByPersona } from "@/test/agents";
import { alice, createTestRoom } from "@/test/fixtures";
import { type TestDatabase, createTestDatabase } from "@/test/test-database";
import { cancelRun } from "./cancel-run";
import { claimNextRun, releaseRun } from "./claim-run";
import { startAgentRun } from "./start-agent-run";

// Claims here take any room's runs, so these tests keep a database of their own.
let database: TestDatabase;

beforeAll(async () => {
  database = await createTestDatabase();
});
afterAll(async () => {
  await database.destroy();
});

/** A Songwriter run claimed by `owner`, as if that worker were executing it. */
async function claimedRun(owner: string, leaseMs = 5000) {
  const { roomId } = await createTestRoom(database.db);
  const songwriter = await agentByPersona(database, roomId, "songwriter");
  const run = await startAgentRun(database.db, roomId, { agentId: songwriter.id, prompt: "Write about rain" }, alice);
  expect((await claimNextRun(database.db, { owner, leaseMs }))?.id).toBe(run.id);
  return { roomId, run };
}

/** No worker can start the run again: it ended cancelled, and said so once. */
async function expectEndedCancelled(roomId: string, runId: string) {
  expect(await claimNextRun(database.db, { owner: "next", leaseMs: 5000 })).toBeNull();
  const [row] = await database.db.select().from(runs).where(eq(runs.id, runId));
  expect(row!.status).toBe("cancelled");
  expect(row!.attempts).toBe(1);
  const events = await readEventsAfter(database.db, roomId, 0, 2000);
  const finished = events
    .filter((event) => event.type === "run.finished" && (event.payload as { runId: string }).runId === runId)
    .map((event) => (event.payload as { status: string }).status);
  expect(finished).toEqual(["cancelled"]);
}

describe("a cancel", () => {
  it("outlives the worker that died running the run: it is not claimed again", async () => {
    const { roomId, run } = await claimedRun("worker-that-dies", 200);
    expect(await cancelRun(database.db, roomId, run.id, alice)).toBe("stopping");
    await new Promise((resolve) => setTimeout(resolve, 400));
    await expectEndedCancelled(roomId, run.id);
  });

  it("holds when the run is handed back to the queue as its worker shuts down", async () => {
    const { roomId, run } = await claimedRun("leaving");
    expect(await cancelRun(database.db, roomId, run.id, alice)).toBe("stopping");
    await releaseRun(database.db, run.id, "leaving");
    await expectEndedCancelled(roomId, run.id);
  });

  it("of a run handed back just before it lands still cancels it", async () => {
    const { roomId, run } = await claimedRun("leaving");
    // The cancel reads the run while it is running; the hand-back lands before the cancel writes.
    const select = database.db.select.bind(database.db);
    const racing = vi.spyOn(database.db, "select").mockImplementationOnce(
      () =>
        ({
          from: (table: typeof runs) => ({
            where: async (condition: SQL) => {
              const rows = await select().from(table).where(condition);
              await releaseRun(database.db, run.id, "leaving");
              return rows;
            },
          }),
        }) as never,
    );
    try {
      expect(await cancelRun(database.db, roomId, run.id, alice)).toBe("cancelled");
    } finally {
      racing.mockRestore();
    }
    await expectEndedCancelled(roomId, run.id);
  });
});
