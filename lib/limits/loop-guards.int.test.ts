import { and, eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { boardEntries, canvasNodes, runs } from "@/db/schema";
import { startAgentRun } from "@/lib/agents/start-agent-run";
import { readEventsAfter } from "@/lib/events/read-events";
import { agentByPersona, startTestWorker } from "@/test/agents";
import { alice, createTestRoom, eventually } from "@/test/fixtures";
import { mockResolver, scriptedSteps, setAgentModel, textStep, toolStep } from "@/test/mock-models";
import { type TestDatabase, createTestDatabase } from "@/test/test-database";

let database: TestDatabase;

beforeAll(async () => {
  database = await createTestDatabase();
});
afterAll(async () => {
  await database.destroy();
});

async function settled(roomId: string, count: number) {
  return eventually(async () => {
    const all = await database.db.select().from(runs).where(eq(runs.roomId, roomId));
    expect(all).toHaveLength(count);
    expect(all.every((run) => !["queued", "running"].includes(run.status))).toBe(true);
    return all;
  }, 20_000);
}

async function eventsOf(roomId: string) {
  return readEventsAfter(database.db, roomId, 0, 5000);
}

type StepResult = { toolResults: { name: string; output?: { ok?: boolean; error?: string } }[] };

describe("the repeated tool call guard", () => {
  it("refuses the third identical call of a run, tells the model and the feed, and stops the run", async () => {
    const { roomId } = await createTestRoom(database.db);
    const songwriter = await agentByPersona(database, roomId, "songwriter");
    const same = { text: "Rain on the window", x: 10, y: 20 };
    // The arguments' keys in another order are the same call.
    const reordered = { y: 20, x: 10, text: "Rain on the window" };
    const looping = scriptedSteps([
      toolStep([{ id: "a", name: "create_node", input: same }]),
      toolStep([{ id: "b", name: "create_node", input: reordered }]),
      toolStep([{ id: "c", name: "create_node", input: same }]),
      toolStep([{ id: "d", name: "create_node", input: same }]),
      textStep("Done."),
    ]);
    await setAgentModel(database, songwriter.id, "mock:looping");
    const worker = await startTestWorker(database, { resolveModel: mockResolver({ looping }) });
    try {
      const run = await startAgentRun(database.db, roomId, { agentId: songwriter.id, prompt: "Go" }, alice);
      const [finished] = await settled(roomId, 1);
      expect(finished!.status).toBe("failed");
      expect(finished!.error).toMatchObject({ error_type: "repeated_tool_call" });
      // The third call's refusal is what the model was answered; no fourth step was asked for.
      expect(looping.doStreamCalls).toHaveLength(3);
      const events = await eventsOf(roomId);
      const steps = events.filter((event) => event.type === "run.step").map((event) => event.payload as StepResult);
      expect(steps).toHaveLength(3);
      expect(steps[2]!.toolResults[0]!.output).toMatchObject({ ok: false });
      expect(steps[2]!.toolResults[0]!.output!.error).toMatch(/called create_node with the same arguments 3 times/);
      expect(await database.db.select().from(canvasNodes).where(eq(canvasNodes.roomId, roomId))).toHaveLength(2);
      const reached = events.find((event) => event.type === "limit.reached");
      expect(reached).toMatchObject({ payload: { limit: "repeated_tool_call", runId: run.id, used: 3, allowed: 3 } });
    } finally {
      await worker.stop();
    }
  });

  it("lets different arguments through, however often the tool is called", async () => {
    const { roomId } = await createTestRoom(database.db);
    const songwriter = await agentByPersona(database, roomId, "songwriter");
    const busy = scriptedSteps([
      ...[0, 1, 2, 3].map((index) => toolStep([{ id: `n${index}`, name: "create_node", input: { text: `Verse ${index}`, x: index * 100, y: 0 } }])),
      textStep("Done."),
    ]);
    await setAgentModel(database, songwriter.id, "mock:busy");
    const worker = await startTestWorker(database, { resolveModel: mockResolver({ busy }) });
    try {
      await startAgentRun(database.db, roomId, { agentId: songwriter.id, prompt: "Go" }, alice);
      const [finished] = await settled(roomId, 1);
      expect(finished!.status).toBe("succeeded");
      expect(await database.db.select().from(canvasNodes).where(eq(canvasNodes.roomId, roomId))).toHaveLength(4);
    } finally {
      await worker.stop();
    }
  });
});

describe("the repeated exchange guard", () => {
  it("stops two agents asking each other the same thing at the third time, with an event saying why", async () => {
    const { roomId } = await createTestRoom(database.db);
    const songwriter = await agentByPersona(database, roomId, "songwriter");
    const storyteller = await agentByPersona(database, roomId, "storyteller");
    const askStoryteller = scriptedSteps([
      toolStep([{ id: "r", name: "request_agent", input: { targetPersona: "storyteller", prompt: "Tell the story of the rain again, please." } }]),
      textStep("Asked."),
    ]);
    const askSongwriter = scriptedSteps([
      toolStep([{ id: "r", name: "request_agent", input: { targetPersona: "songwriter", prompt: "Please tell the story of the RAIN again!" } }]),
      textStep("Asked back."),
    ]);
    await setAgentModel(database, songwriter.id, "mock:askStoryteller");
    await setAgentModel(database, storyteller.id, "mock:askSongwriter");
    const worker = await startTestWorker(database, { resolveModel: mockResolver({ askStoryteller, askSongwriter }) });
    try {
      const first = await startAgentRun(database.db, roomId, { agentId: songwriter.id, prompt: "Go" }, alice);
      // Songwriter → Storyteller → Songwriter, whose ask back would be the third saying the same.
      const all = await settled(roomId, 3);
      const third = all.find((run) => run.chainDepth === 2)!;
      expect(third.agentId).toBe(songwriter.id);
      expect(third.status).toBe("failed");
      expect(third.error).toMatchObject({ error_type: "repeated_exchange" });
      expect(all.find((run) => run.id === first.id)!.status).toBe("succeeded");
      const requests = await database.db
        .select()
        .from(boardEntries)
        .where(and(eq(boardEntries.roomId, roomId), eq(boardEntries.kind, "request")));
      expect(requests).toHaveLength(2);
      const events = await eventsOf(roomId);
      const refusal = events
        .filter((event) => event.type === "run.step" && (event.payload as { runId: string }).runId === third.id)
        .map((event) => event.payload as StepResult)[0]!.toolResults[0]!;
      expect(refusal.output?.error).toMatch(/Songwriter and Storyteller have asked each other much the same thing 3 times in this workflow/);
      const reached = events.find((event) => event.type === "limit.reached");
      expect(reached).toMatchObject({ payload: { limit: "repeated_exchange", runId: third.id, used: 3, allowed: 3 } });
    } finally {
      await worker.stop();
    }
  });

  it("leaves agents started afresh to ask what they like: each start is a workflow of its own", async () => {
    const { roomId } = await createTestRoom(database.db);
    const songwriter = await agentByPersona(database, roomId, "songwriter");
    const storyteller = await agentByPersona(database, roomId, "storyteller");
    const asking = scriptedSteps([
      toolStep([{ id: "r", name: "request_agent", input: { targetPersona: "storyteller", prompt: "Tell the story of the rain again, please." } }]),
      textStep("Asked."),
    ]);
    await setAgentModel(database, songwriter.id, "mock:asking");
    await setAgentModel(database, storyteller.id, "script:storyteller");
    const worker = await startTestWorker(database, { resolveModel: mockResolver({ asking }) });
    try {
      for (let start = 1; start <= 3; start++) {
        await startAgentRun(database.db, roomId, { agentId: songwriter.id, prompt: `Go ${start}` }, alice);
        await settled(roomId, start * 2);
      }
      const all = await database.db.select().from(runs).where(eq(runs.roomId, roomId));
      expect(all.filter((run) => run.agentId === songwriter.id).map((run) => run.status)).toEqual(["succeeded", "succeeded", "succeeded"]);
      expect((await eventsOf(roomId)).some((event) => event.type === "limit.reached")).toBe(false);
    } finally {
      await worker.stop();
    }
  });
});
