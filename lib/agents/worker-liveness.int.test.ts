import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runs } from "@/db/schema";
import { readEventsAfter } from "@/lib/events/read-events";
import { agentByPersona, startTestWorker } from "@/test/agents";
import { alice, createTestRoom, eventually } from "@/test/fixtures";
import { MockLanguageModelV4 } from "ai/test";
import { mockResolver, scriptedSteps, setAgentModel, textStep, toolStep } from "@/test/mock-models";
import { type TestDatabase, createTestDatabase } from "@/test/test-database";
import { claimNextRun } from "./claim-run";
import { startAgentRun } from "./start-agent-run";
import { DEFAULT_LEASE_MS } from "./worker";

let database: TestDatabase;

beforeAll(async () => {
  database = await createTestDatabase();
});
afterAll(async () => {
  await database.destroy();
});

async function runRow(runId: string) {
  const [run] = await database.db.select().from(runs).where(eq(runs.id, runId));
  return run!;
}

describe("a worker's runs", () => {
  it("are taken over within ten seconds of its instance dying", async () => {
    const { roomId } = await createTestRoom(database.db);
    const songwriter = await agentByPersona(database, roomId, "songwriter");
    const quick = scriptedSteps([textStep("Here I am.")]);
    await setAgentModel(database, songwriter.id, "mock:quick");
    const run = await startAgentRun(database.db, roomId, { agentId: songwriter.id, prompt: "Go" }, alice);
    // A worker claims the run with the default lease and dies at once: no heartbeat ever extends it.
    expect((await claimNextRun(database.db, { owner: "worker-that-died", leaseMs: DEFAULT_LEASE_MS }))!.id).toBe(run.id);
    const died = Date.now();
    // The surviving instance's worker, as the app starts it: default lease, looking for work every second.
    const survivor = await startTestWorker(database, { resolveModel: mockResolver({ quick }), leaseMs: undefined, pollMs: 1000 });
    try {
      const finished = await eventually(async () => {
        const row = await runRow(run.id);
        expect(row.status).toBe("succeeded");
        return row;
      }, 15_000);
      expect(finished.attempts).toBe(2);
      const events = await readEventsAfter(database.db, roomId, 0);
      const restarted = events.find((event) => event.type === "run.started" && event.payload.attempt === 2)!;
      expect(Date.parse(restarted.timestamp) - died).toBeLessThan(10_000);
    } finally {
      await survivor.stop();
    }
  }, 30_000);

  it("stay with a live worker through many leases, however many other workers look for work", async () => {
    const { roomId } = await createTestRoom(database.db);
    const songwriter = await agentByPersona(database, roomId, "songwriter");
    // Each of three steps takes two seconds: the run outlives its 600 ms lease ten times over (a lease short
    // enough to lapse between two heartbeats of a busy machine would test the machine, not the worker).
    const steps = scriptedSteps([
      toolStep([{ id: "a", name: "read_shared_context", input: { limit: 1 } }]),
      toolStep([{ id: "b", name: "read_shared_context", input: { limit: 2 } }]),
      textStep("Done."),
    ]);
    const slow = new MockLanguageModelV4({
      doStream: async (call) => {
        await new Promise((resolve) => setTimeout(resolve, 2000));
        return steps.doStream(call);
      },
    });
    await setAgentModel(database, songwriter.id, "mock:slow");
    const owner = await startTestWorker(database, { resolveModel: mockResolver({ slow }), leaseMs: 600 });
    const rivals = await Promise.all(
      [1, 2].map(() => startTestWorker(database, { resolveModel: mockResolver({ slow }), leaseMs: 600, pollMs: 20 })),
    );
    try {
      const run = await startAgentRun(database.db, roomId, { agentId: songwriter.id, prompt: "Go" }, alice);
      const finished = await eventually(async () => {
        const row = await runRow(run.id);
        expect(row.status).toBe("succeeded");
        return row;
      }, 20_000);
      expect(finished.attempts).toBe(1);
      expect(slow.doStreamCalls).toHaveLength(3);
    } finally {
      await Promise.all([owner, ...rivals].map((worker) => worker.stop()));
    }
  }, 30_000);
});
