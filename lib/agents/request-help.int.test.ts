import { and, eq } from "drizzle-orm";
import { MockLanguageModelV4 } from "ai/test";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { agentNotes, boardEntries, events, runs } from "@/db/schema";
import type { PayloadOf } from "@/lib/protocol";
import { agentByPersona, startTestWorker } from "@/test/agents";
import { type ChatReply, type ChatRequest, startChatServer } from "@/test/chat-server";
import { alice, createTestRoom, eventually } from "@/test/fixtures";
import { gate, mockResolver, scriptedSteps, setAgentModel, textStep, toolStep } from "@/test/mock-models";
import { standInResolver } from "@/test/stand-in-resolver";
import { type TestDatabase, createTestDatabase } from "@/test/test-database";
import { startAgentRun } from "./start-agent-run";

let database: TestDatabase;
let worker: Awaited<ReturnType<typeof startTestWorker>>;
/** A stand-in OpenAI-compatible server for agents on `openai-compatible:stand-in`; each test says how it answers. */
let standIn: Awaited<ReturnType<typeof startChatServer>>;
let answer: (request: ChatRequest) => ChatReply | Promise<ChatReply> = () => ({ text: "Done." });

const help = (id: string, target: string, question = "Which line should the story open with?") => ({ id, name: "request_help", input: { target, question } });
/** Held helpers: each answers once its test lets it. */
const helperGates = { whileRunning: gate(), nextRun: gate() };

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
  heldWhileRunning: scriptedSteps([textStep("Open with the keeper lighting the lamp.")], { gate: helperGates.whileRunning.promise }),
  heldNextRun: scriptedSteps([textStep("Open on the breakwater at dawn.")], { gate: helperGates.nextRun.promise }),
  // A chain of help requests, each agent asking the next.
  askPainter: scriptedSteps([toolStep([help("c1", "scene-painter")]), textStep("Asked.")]),
  askStoryteller: scriptedSteps([toolStep([help("c2", "storyteller")]), textStep("Asked.")]),
  askCurator: scriptedSteps([toolStep([help("c3", "curator")]), textStep("Asked.")]),
  askSongwriter: scriptedSteps([toolStep([help("c4", "songwriter")]), textStep("Asked.")]),
};

beforeAll(async () => {
  database = await createTestDatabase();
  standIn = await startChatServer((request) => answer(request));
  const mocks = mockResolver(models);
  const wire = standInResolver(standIn);
  worker = await startTestWorker(database, {
    resolveModel: (spec, agent) => (spec.startsWith("mock:") ? mocks(spec) : wire(spec, agent)),
    onError: () => {},
  });
});
afterAll(async () => {
  for (const held of Object.values(helperGates)) held.release();
  await worker.stop();
  await standIn.close();
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

/** A room whose Songwriter asks on the stand-in server (its requests counted afresh) and whose Scene Painter helps on `helperModel`. */
async function askerOnTheWire(helperModel: string) {
  const { roomId } = await createTestRoom(database.db);
  const songwriter = await agentByPersona(database, roomId, "songwriter");
  const painter = await agentByPersona(database, roomId, "scene-painter");
  await setAgentModel(database, songwriter.id, "openai-compatible:stand-in");
  await setAgentModel(database, painter.id, helperModel);
  standIn.requests.length = 0;
  return { roomId, songwriter };
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
    // The feed's line is told by the helper: "Scene Painter answered Songwriter's help request".
    const [answered] = await database.db.select().from(events).where(and(eq(events.roomId, roomId), eq(events.type, "help.answered")));
    expect(answered).toMatchObject({ agent: painter.id, agentName: "Scene Painter", targetAgent: songwriter.id });
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

  it("gives the answer to an asker still running in its next model call (on the wire)", async () => {
    const { roomId, songwriter } = await askerOnTheWire("mock:heldWhileRunning");
    let calls = 0;
    answer = async () => {
      const call = calls++;
      if (call === 0) return { toolCall: { name: "request_help", arguments: { target: "scene-painter", question: "Which line should open the song?" } } };
      if (call === 1) {
        // The asker works on while its helper answers.
        helperGates.whileRunning.release();
        await eventually(async () => expect(await helpEvents(roomId)).toHaveLength(1), 10_000);
        return { toolCall: { name: "read_shared_context", arguments: {} } };
      }
      return { text: "Opening with the lamp." };
    };
    const asked = await startAgentRun(database.db, roomId, { agentId: songwriter.id, prompt: "Write a song" }, alice);
    await settled(roomId, 2);

    expect(standIn.requests).toHaveLength(3);
    expect(standIn.userText(1)).not.toMatch(/answered your help request/);
    expect(standIn.userText(2)).toMatch(/Scene Painter answered your help request \("Which line should open the song\?"\): Open with the keeper lighting the lamp\./);
    const [note] = await database.db.select().from(agentNotes).where(eq(agentNotes.agentId, songwriter.id));
    expect(note).toMatchObject({ kind: "help", deliveredToRunId: asked.id, deliveredAtStep: 2 });
  });

  it("gives the answer to an asker that has finished in its next run, once", async () => {
    const { roomId, songwriter } = await askerOnTheWire("mock:heldNextRun");
    let calls = 0;
    answer = () =>
      calls++ === 0
        ? { toolCall: { name: "request_help", arguments: { target: "scene-painter", question: "Where should the song begin?" } } }
        : { text: "Carrying on." };
    const first = await startAgentRun(database.db, roomId, { agentId: songwriter.id, prompt: "Write a song" }, alice);
    await eventually(async () => {
      const [row] = await database.db.select().from(runs).where(eq(runs.id, first.id));
      expect(row!.status).toBe("succeeded");
    }, 10_000);
    helperGates.nextRun.release();
    await settled(roomId, 2);
    // The answer waits for the asker's next run: nothing starts one for it.
    const [waiting] = await database.db.select().from(agentNotes).where(eq(agentNotes.agentId, songwriter.id));
    expect(waiting).toMatchObject({ kind: "help", deliveredAt: null });

    const next = await startAgentRun(database.db, roomId, { agentId: songwriter.id, prompt: "Write the second verse" }, alice);
    await settled(roomId, 3);
    expect(standIn.requests).toHaveLength(3);
    expect(standIn.userText(1)).not.toMatch(/answered your help request/);
    expect(standIn.userText(2)).toMatch(/Scene Painter answered your help request \("Where should the song begin\?"\): Open on the breakwater at dawn\./);
    const [note] = await database.db.select().from(agentNotes).where(eq(agentNotes.agentId, songwriter.id));
    expect(note).toMatchObject({ deliveredToRunId: next.id, deliveredAtStep: 0 });
  });

  it("keeps to the chain depth limit: the fourth link of a chain of help requests is refused", async () => {
    const { roomId } = await createTestRoom(database.db);
    const chain = [
      ["songwriter", "askPainter"],
      ["scene-painter", "askStoryteller"],
      ["storyteller", "askCurator"],
      ["curator", "askSongwriter"],
    ] as const;
    for (const [persona, model] of chain) await setAgentModel(database, (await agentByPersona(database, roomId, persona)).id, `mock:${model}`);
    const songwriter = await agentByPersona(database, roomId, "songwriter");
    const curator = await agentByPersona(database, roomId, "curator");
    await startAgentRun(database.db, roomId, { agentId: songwriter.id, prompt: "Write" }, alice);
    const all = await settled(roomId, 4);

    expect(all.map((run) => run.chainDepth).sort()).toEqual([0, 1, 2, 3]);
    const last = all.find((run) => run.agentId === curator.id)!;
    expect(last.chainDepth).toBe(3);
    const steps = await database.db.select().from(events).where(and(eq(events.roomId, roomId), eq(events.type, "run.step")));
    const refused = steps
      .map((row) => row.payload as PayloadOf<"run.step">)
      .find((step) => step.runId === last.id && step.step === 0)!
      .toolResults.find((result) => result.name === "request_help");
    expect(refused?.output).toMatchObject({ ok: false, error: expect.stringMatching(/link 4 of a chain limited to 3/) });
    const requests = await database.db.select().from(boardEntries).where(and(eq(boardEntries.roomId, roomId), eq(boardEntries.kind, "request")));
    expect(requests).toHaveLength(3);
  });
});
