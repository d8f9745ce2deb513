import { and, eq } from "drizzle-orm";
import { MockLanguageModelV4 } from "ai/test";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { agentNotes, boardEntries, events, runs } from "@/db/schema";
import type { PayloadOf } from "@/lib/protocol";
import { agentByPersona, startTestWorker } from "@/test/agents";
import { alice, createTestRoom, eventually } from "@/test/fixtures";
import { mockResolver, scriptedSteps, setAgentModel, textStep, toolStep } from "@/test/mock-models";
import { type TestDatabase, createTestDatabase } from "@/test/test-database";
import { startAgentRun } from "./start-agent-run";

let database: TestDatabase;
let worker: Awaited<ReturnType<typeof startTestWorker>>;

const help = (id: string, target: string, question = "Which line should the story open with?") => ({ id, name: "request_help", input: { target, question } });

const models = {
  asker: scriptedSteps([toolStep([help("h1", "scene-painter")], "Asking the Scene Painter."), textStep("Carrying on.")]),
  greedy: scriptedSteps([
    toolStep([help("g1", "songwriter"), help("g2", "drummer"), help("g3", "curator"), help("g4", "idea-weaver"), help("g5", "storyteller"), help("g6", "scene-painter")]),
    textStep("Done asking."),
  ]),
  broken: new MockLanguageModelV4({
    doStream: async () => {
      throw new Error("the provider is down");
    },
  }),
};

beforeAll(async () => {
  database = await createTestDatabase();
  worker = await startTestWorker(database, { resolveModel: mockResolver(models), onError: () => {} });
});
afterAll(async () => {
  await worker.stop();
  await database.destroy();
});

async function settled(roomId: string, count: number) {
  return eventually(async () => {
    const all = await database.db.select().from(runs).where(eq(runs.roomId, roomId));
    expect(all).toHaveLength(count);
    expect(all.every((run) => run.status !== "queued" && run.status !== "running")).toBe(true);
    return all;
  }, 20_000);
}

async function helpEvents(roomId: string) {
  const rows = await database.db.select().from(events).where(and(eq(events.roomId, roomId), eq(events.type, "help.answered")));
  return rows.map((row) => row.payload as PayloadOf<"help.answered">);
}

describe("request_help", () => {
  it("returns at once, and the helper's answer comes back to the asker as a message", async () => {
    const { roomId } = await createTestRoom(database.db);
    const songwriter = await agentByPersona(database, roomId, "songwriter");
    const painter = await agentByPersona(database, roomId, "scene-painter");
    await setAgentModel(database, songwriter.id, "mock:asker");
    const asked = await startAgentRun(database.db, roomId, { agentId: songwriter.id, prompt: "Write" }, alice);
    const all = await settled(roomId, 2);

    const step = await database.db.select().from(events).where(and(eq(events.roomId, roomId), eq(events.type, "run.step")));
    const result = step.map((row) => row.payload as PayloadOf<"run.step">).flatMap((payload) => payload.toolResults)[0];
    expect(result).toMatchObject({ name: "request_help", output: { ok: true, helpId: expect.any(String), status: "started" } });
    const helper = all.find((run) => run.agentId === painter.id)!;
    expect(helper).toMatchObject({ status: "succeeded", trigger: "request", parentRunId: asked.id, chainDepth: 1 });
    expect(helper.prompt).toBe("Songwriter asks for your help: Which line should the story open with?");

    const [note] = await database.db.select().from(agentNotes).where(eq(agentNotes.agentId, songwriter.id));
    expect(note).toMatchObject({ kind: "help", deliveredAt: null });
    expect(note!.text).toMatch(/^Scene Painter answered your help request \("Which line should the story open with\?"\): .+/);
    expect(await helpEvents(roomId)).toEqual([
      expect.objectContaining({ askerAgentId: songwriter.id, helperAgentId: painter.id, answered: true }),
    ]);
    const [entry] = await database.db.select().from(boardEntries).where(eq(boardEntries.roomId, roomId));
    expect(entry).toMatchObject({ kind: "request", requestStatus: "answered", content: expect.objectContaining({ help: true }) });
  });

  it("tells the asker when the helper could not answer, and does not ask again", async () => {
    const { roomId } = await createTestRoom(database.db);
    const songwriter = await agentByPersona(database, roomId, "songwriter");
    const painter = await agentByPersona(database, roomId, "scene-painter");
    await setAgentModel(database, songwriter.id, "mock:asker");
    await setAgentModel(database, painter.id, "mock:broken");
    await startAgentRun(database.db, roomId, { agentId: songwriter.id, prompt: "Write" }, alice);
    const all = await settled(roomId, 2);
    expect(all.find((run) => run.agentId === painter.id)!.status).toBe("failed");
    const [note] = await database.db.select().from(agentNotes).where(eq(agentNotes.agentId, songwriter.id));
    expect(note!.text).toMatch(/^Scene Painter could not answer your help request \(".+"\): .*the provider is down/);
    expect(await helpEvents(roomId)).toEqual([expect.objectContaining({ answered: false })]);
    const [entry] = await database.db.select().from(boardEntries).where(eq(boardEntries.roomId, roomId));
    expect(entry!.requestStatus).toBe("failed");
  });

  it("refuses itself, unknown and unavailable teammates (listing them), and more than two a run", async () => {
    const { roomId } = await createTestRoom(database.db);
    const songwriter = await agentByPersona(database, roomId, "songwriter");
    const curator = await agentByPersona(database, roomId, "curator");
    await setAgentModel(database, songwriter.id, "mock:greedy");
    await setAgentModel(database, curator.id, "mock:missing");
    await startAgentRun(database.db, roomId, { agentId: songwriter.id, prompt: "Write" }, alice);
    await settled(roomId, 3);
    const stepEvents = await database.db.select().from(events).where(and(eq(events.roomId, roomId), eq(events.type, "run.step")));
    const first = stepEvents.map((row) => row.payload as PayloadOf<"run.step">).find((step) => step.agentId === songwriter.id && step.step === 0);
    // Results come in the order the tools finished; put them back in the order of the calls.
    const byCall = new Map(first!.toolResults.map((result) => [result.id, result.output as { ok: boolean; error?: string; status?: string }]));
    const outputs = ["g1", "g2", "g3", "g4", "g5", "g6"].map((id) => byCall.get(id)!);
    expect(outputs[0]!.error).toMatch(/cannot ask yourself.*scene-painter \(Scene Painter\)/);
    expect(outputs[1]!.error).toMatch(/Unknown persona "drummer". Ask one of: .*storyteller \(Storyteller\)/);
    expect(outputs[2]!.error).toMatch(/Curator cannot work right now/);
    // The three valid asks run side by side: two get through, whichever come first.
    const valid = outputs.slice(3);
    expect(valid.filter((output) => output.ok)).toHaveLength(2);
    expect(valid.filter((output) => !output.ok).map((output) => output.error)).toEqual([
      expect.stringMatching(/Only 2 help requests are allowed per run; this run has made 2/),
    ]);
  });
});
