import type { LanguageModelV4CallOptions, LanguageModelV4StreamPart } from "@ai-sdk/provider";
import { MockLanguageModelV4, convertArrayToReadableStream } from "ai/test";
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Run, runs } from "@/db/schema";
import { readEventsAfter } from "@/lib/events/read-events";
import type { PayloadOf } from "@/lib/protocol";
import { RoomBus } from "@/lib/realtime/bus";
import { agentByPersona, startTestWorker } from "@/test/agents";
import { alice, createTestRoom, eventually } from "@/test/fixtures";
import { mockResolver, setAgentModel, textStep, toolStep } from "@/test/mock-models";
import { type TestDatabase, createTestDatabase } from "@/test/test-database";
import { claimNextRun } from "./claim-run";
import { type StopReason, executeRun } from "./execute-run";
import { startAgentRun } from "./start-agent-run";

// Claims here take any room's runs, so these tests keep a database of their own.
let database: TestDatabase;
let bus: RoomBus;

beforeAll(async () => {
  database = await createTestDatabase();
  bus = new RoomBus(database);
  await bus.start();
});
afterAll(async () => {
  await bus.stop();
  await database.destroy();
});

/**
 * A model that plays `steps` in order (chosen by the assistant turns already in its prompt),
 * except that while `dying` is set it never answers step `stallAt`: its worker dies there.
 */
function stallingModel(steps: LanguageModelV4StreamPart[][], stallAt: number) {
  const control = { dying: true };
  const model = new MockLanguageModelV4({
    doStream: async (call: LanguageModelV4CallOptions) => {
      const done = call.prompt.filter((message) => message.role === "assistant").length;
      if (control.dying && done === stallAt) {
        await new Promise((_, reject) => call.abortSignal?.addEventListener("abort", () => reject(call.abortSignal!.reason)));
      }
      return { stream: convertArrayToReadableStream(steps[Math.min(done, steps.length - 1)]!) };
    },
  });
  return { model, control };
}

async function runRow(runId: string): Promise<Run> {
  const [row] = await database.db.select().from(runs).where(eq(runs.id, runId));
  return row!;
}

/**
 * Executes `runId` as a worker that dies once `steps` steps are saved: its lease (short) is
 * left to lapse, as when its process is killed, so another worker claims the run again.
 */
async function dieAfterSteps(runId: string, steps: number, model: ReturnType<typeof stallingModel>) {
  const claimed = await claimNextRun(database.db, { owner: "worker-that-dies", leaseMs: 400 });
  expect(claimed?.id).toBe(runId);
  const controller = new AbortController();
  let reason: StopReason | null = null;
  const executing = executeRun(
    { database, bus, resolveModel: mockResolver({ stalling: model.model }), typingFlushMs: 10 },
    claimed!,
    { owner: "worker-that-dies", signal: controller.signal, stopReason: () => reason },
  );
  await eventually(async () => expect((await runRow(runId)).steps).toBe(steps));
  reason = "lease_lost";
  controller.abort(new Error(reason));
  expect(await executing).toBeNull();
  model.control.dying = false;
}

async function runEvents(roomId: string, runId: string) {
  const events = await readEventsAfter(database.db, roomId, 0, 2000);
  const ofRun = events.filter((event) => (event.payload as { runId?: string }).runId === runId);
  return {
    steps: ofRun.filter((event) => event.type === "run.step").map((event) => event.payload as PayloadOf<"run.step">),
    finished: ofRun.filter((event) => event.type === "run.finished").map((event) => event.payload as PayloadOf<"run.finished">),
  };
}

describe("a run whose worker died", () => {
  it("is announced finished with the totals of all its attempts, and how many there were", async () => {
    const { roomId } = await createTestRoom(database.db);
    const songwriter = await agentByPersona(database, roomId, "coder");
    const stalling = stallingModel(
      [toolStep([{ id: "n1", name: "create_node", input: { text: "Rain taps the glass", kind: "lyric" } }]), textStep("Done.")],
      1,
    );
    await setAgentModel(database, songwriter.id, "mock:stalling");
    const run = await startAgentRun(database.db, roomId, { agentId: songwriter.id, prompt: "Write about rain" }, alice);
    await dieAfterSteps(run.id, 1, stalling);

    const survivor = await startTestWorker(database, { resolveModel: mockResolver({ stalling: stalling.model }) });
    try {
      await eventually(async () => expect((await runRow(run.id)).status).toBe("succeeded"), 20_000);
    } finally {
      await survivor.stop();
    }
    const row = await runRow(run.id);
    const { steps, finished } = await runEvents(roomId, run.id);
    expect(finished).toHaveLength(1);
    const sum = (pick: (step: PayloadOf<"run.step">) => number) => steps.reduce((total, step) => total + pick(step), 0);
    expect(finished[0]).toMatchObject({
      status: "succeeded",
      attempts: 2,
      steps: steps.length,
      inputTokens: sum((step) => step.inputTokens),
      outputTokens: sum((step) => step.outputTokens),
    });
    expect(finished[0]!.costUsd).toBeCloseTo(sum((step) => step.costUsd), 10);
    expect(finished[0]).toMatchObject({
      steps: row.steps,
      attempts: row.attempts,
      inputTokens: row.inputTokens,
      outputTokens: row.outputTokens,
    });
  });
});
