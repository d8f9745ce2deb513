import { and, eq, inArray } from "drizzle-orm";
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
import { cancelRun } from "./cancel-run";
import { startAgentRun } from "./start-agent-run";

let database: TestDatabase;
let worker: Awaited<ReturnType<typeof startTestWorker>>;
/** A stand-in OpenAI-compatible server for agents on `openai-compatible:stand-in`; each test says how it answers. */
let standIn: Awaited<ReturnType<typeof startChatServer>>;
let answer: (request: ChatRequest) => ChatReply | Promise<ChatReply> = () => ({ text: "Done." });

const help = (id: string, target: string, question = "Which line should the story open with?") => ({
  id,
  name: "request_help",
  input: { target, question },
});
const work = (id: string, targetPersona: string) => ({
  id,
  name: "request_agent",
  input: { targetPersona, prompt: "Tell the story of my verse" },
});
/** Held helpers: each answers once its test lets it. */
const helperGates = { whileRunning: gate(), nextRun: gate(), busy: gate(), busyUntilCancelled: gate() };

const models = {
  asker: scriptedSteps([toolStep([help("h1", "scene-painter")], "Asking the Scene Painter."), textStep("Carrying on.")]),
  greedy: scriptedSteps([
    toolStep([
      help("g1", "songwriter"),
      help("g2", "drummer"),
      help("g3", "curator"),
      help("g4", "idea-weaver"),
      help("g5", "storyteller"),
      help("g6", "scene-painter"),
    ]),
    textStep("Done asking."),
  ]),
  broken: new MockLanguageModelV4({
    doStream: async () => {
      throw new Error("the provider is down");
    },
  }),
  heldWhileRunning: scriptedSteps([textStep("Open with the keeper lighting the lamp.")], { gate: helperGates.whileRunning.promise }),
  heldNextRun: scriptedSteps([textStep("Open on the breakwater at dawn.")], { gate: helperGates.nextRun.promise }),
  // A helper already at work on a run of its own when it is asked.
  busy: scriptedSteps([textStep("Open with the harbour lights.")], { gate: helperGates.busy.promise }),
  busyUntilCancelled: scriptedSteps([textStep("Painted the quay.")], { gate: helperGates.busyUntilCancelled.promise }),
  // One request for work and two for help in one step, then one more of each.
  mixed: scriptedSteps([
    toolStep([work("w1", "storyteller"), help("m1", "scene-painter"), help("m2", "curator")]),
    toolStep([help("m3", "idea-weaver"), work("w2", "idea-weaver")]),
    textStep("Done asking."),
  ]),
  done: scriptedSteps([textStep("Done.")]),
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

/** What each tool call of the agent's step answered, by call id. */
async function stepResults(roomId: string, agentId: string, step: number) {
  const rows = await database.db
    .select()
    .from(events)
    .where(and(eq(events.roomId, roomId), eq(events.type, "run.step")));
  const payload = rows
    .map((row) => row.payload as PayloadOf<"run.step">)
    .find((candidate) => candidate.agentId === agentId && candidate.step === step);
  return new Map(
    (payload?.toolResults ?? []).map((result) => [result.id, result.output as { ok: boolean; error?: string; status?: string }]),
  );
}

/** A room whose Scene Painter is at work, held, on a run of its own (on `model`), and whose Songwriter then asks it for help. */
async function askBusyPainter(model: "busy" | "busyUntilCancelled") {
  const { roomId } = await createTestRoom(database.db);
  const songwriter = await agentByPersona(database, roomId, "songwriter");
  const painter = await agentByPersona(database, roomId, "scene-painter");
  await setAgentModel(database, painter.id, `mock:${model}`);
  await setAgentModel(database, songwriter.id, "mock:asker");
  const own = await startAgentRun(database.db, roomId, { agentId: painter.id, prompt: "Paint the quay" }, alice);
  await eventually(async () => {
    const [row] = await database.db.select().from(runs).where(eq(runs.id, own.id));
    expect(row!.status).toBe("running");
  }, 10_000);
  await startAgentRun(database.db, roomId, { agentId: songwriter.id, prompt: "Write" }, alice);
  const asked = await eventually(async () => {
    const result = (await stepResults(roomId, songwriter.id, 0)).get("h1");
    expect(result).toBeDefined();
    return result!;
  }, 10_000);
  const helpRun = await eventually(async () => {
    const [row] = await database.db
      .select()
      .from(runs)
      .where(and(eq(runs.agentId, painter.id), eq(runs.trigger, "request")));
    expect(row).toBeDefined();
    return row!;
  });
  return { roomId, songwriter, painter, own, asked, helpRun };
}

async function helpEvents(roomId: string) {
  const rows = await database.db
    .select()
    .from(events)
    .where(and(eq(events.roomId, roomId), eq(events.type, "help.answered")));
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

    const step = await database.db
      .select()
      .from(events)
      .where(and(eq(events.roomId, roomId), eq(events.type, "run.step")));
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
    const [answered] = await database.db
      .select()
      .from(events)
      .where(and(eq(events.roomId, roomId), eq(events.type, "help.answered")));
    expect(answered).toMatchObject({ agent: painter.id, agentName: "Scene Painter", targetAgent: songwriter.id });
    const [entry] = await database.db.select().from(boardEntries).where(eq(boardEntries.roomId, roomId));
    expect(entry).toMatchObject({ kind: "request", requestStatus: "answered", content: expect.objectContaining({ help: true }) });
    // Every message of the exchange names whom it is for by agent id: the request on the board,
    // the helper's run it queued, and the answer.
    const addressed = await database.db
      .select({ type: events.type, targetAgent: events.targetAgent })
      .from(events)
      .where(and(eq(events.roomId, roomId), inArray(events.type, ["board.posted", "run.queued", "help.answered"])))
      .orderBy(events.seq);
    expect(addressed).toEqual([
      { type: "run.queued", targetAgent: songwriter.id },
      { type: "board.posted", targetAgent: painter.id },
      { type: "run.queued", targetAgent: painter.id },
      { type: "help.answered", targetAgent: songwriter.id },
    ]);
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

  it("says queued when the teammate already has a run, and the answer comes once that run is done", async () => {
    const { roomId, songwriter, painter, own, asked, helpRun } = await askBusyPainter("busy");
    expect(asked).toMatchObject({ ok: true, helpId: expect.any(String), status: "queued" });
    // The helper runs one run at a time: its answer waits for the run it was already at.
    expect(helpRun.status).toBe("queued");
    helperGates.busy.release();
    const all = await settled(roomId, 3);
    const [first, answering] = [all.find((run) => run.id === own.id)!, all.find((run) => run.id === helpRun.id)!];
    expect(answering).toMatchObject({
      status: "succeeded",
      prompt: "Songwriter asks for your help: Which line should the story open with?",
    });
    expect(answering.startedAt!.getTime()).toBeGreaterThanOrEqual(first.finishedAt!.getTime());
    const [note] = await database.db.select().from(agentNotes).where(eq(agentNotes.agentId, songwriter.id));
    expect(note!.text).toBe(
      'Scene Painter answered your help request ("Which line should the story open with?"): Open with the harbour lights.',
    );
    expect(await helpEvents(roomId)).toEqual([expect.objectContaining({ helperAgentId: painter.id, answered: true })]);
  });

  it("says queued when the room is at its limit of concurrent runs, and the helper starts once the asker has finished", async () => {
    // The asker's own run takes the room's one slot: the idle helper's run waits for it.
    const { roomId } = await createTestRoom(database.db, { max_concurrent_runs: 1 });
    const songwriter = await agentByPersona(database, roomId, "songwriter");
    const painter = await agentByPersona(database, roomId, "scene-painter");
    await setAgentModel(database, songwriter.id, "mock:asker");
    const asking = await startAgentRun(database.db, roomId, { agentId: songwriter.id, prompt: "Write" }, alice);
    const all = await settled(roomId, 2);

    expect((await stepResults(roomId, songwriter.id, 0)).get("h1")).toMatchObject({
      ok: true,
      helpId: expect.any(String),
      status: "queued",
    });
    const [asker, helper] = [all.find((run) => run.id === asking.id)!, all.find((run) => run.agentId === painter.id)!];
    expect(helper).toMatchObject({ status: "succeeded", trigger: "request" });
    expect(helper.startedAt!.getTime()).toBeGreaterThanOrEqual(asker.finishedAt!.getTime());
  });

  it("tells the asker when the helper's run is cancelled, and does not ask again", async () => {
    const { roomId, songwriter, asked, helpRun } = await askBusyPainter("busyUntilCancelled");
    expect(asked).toMatchObject({ ok: true, status: "queued" });
    expect(await cancelRun(database.db, roomId, helpRun.id, alice)).toBe("cancelled");
    helperGates.busyUntilCancelled.release();
    const all = await settled(roomId, 3);
    expect(all.find((run) => run.id === helpRun.id)!.status).toBe("cancelled");
    const [note] = await database.db.select().from(agentNotes).where(eq(agentNotes.agentId, songwriter.id));
    expect(note).toMatchObject({ kind: "help", deliveredAt: null });
    expect(note!.text).toBe(
      'Scene Painter could not answer your help request ("Which line should the story open with?"): it was cancelled',
    );
    expect(await helpEvents(roomId)).toEqual([expect.objectContaining({ answered: false, text: "it was cancelled" })]);
    const [answered] = await database.db
      .select()
      .from(events)
      .where(and(eq(events.roomId, roomId), eq(events.type, "help.answered")));
    expect(answered).toMatchObject({ agentName: "Scene Painter", targetAgent: songwriter.id, status: "error" });
    const [entry] = await database.db
      .select()
      .from(boardEntries)
      .where(and(eq(boardEntries.roomId, roomId), eq(boardEntries.kind, "request")));
    expect(entry!.requestStatus).toBe("failed");
  });

  it("keeps help requests apart from request_agent: one of those and two help requests in a run, then a third of either is refused", async () => {
    // Room enough for every run asked for to start at once.
    const { roomId } = await createTestRoom(database.db, { max_concurrent_runs: 5 });
    const songwriter = await agentByPersona(database, roomId, "songwriter");
    await setAgentModel(database, songwriter.id, "mock:mixed");
    for (const persona of ["storyteller", "scene-painter", "curator", "idea-weaver"]) {
      await setAgentModel(database, (await agentByPersona(database, roomId, persona)).id, "mock:done");
    }
    await startAgentRun(database.db, roomId, { agentId: songwriter.id, prompt: "Write" }, alice);
    const all = await settled(roomId, 4);

    const first = await stepResults(roomId, songwriter.id, 0);
    expect(first.get("w1")).toMatchObject({ ok: true, status: "queued" });
    expect(first.get("m1")).toMatchObject({ ok: true, status: "started" });
    expect(first.get("m2")).toMatchObject({ ok: true, status: "started" });
    const second = await stepResults(roomId, songwriter.id, 1);
    expect(second.get("m3")).toMatchObject({ ok: false, error: "Only 2 help requests are allowed per run; this run has made 2." });
    expect(second.get("w2")).toMatchObject({
      ok: false,
      error: expect.stringMatching(/^Only 1 request is allowed per run, through request_agent or the board; this run has made 1\./),
    });

    const requested = all.filter((run) => run.trigger === "request");
    expect(requested.map((run) => run.prompt).sort()).toEqual([
      "Songwriter asks for your help: Which line should the story open with?",
      "Songwriter asks for your help: Which line should the story open with?",
      "Songwriter asks you: Tell the story of my verse",
    ]);
    const requests = await database.db
      .select()
      .from(boardEntries)
      .where(and(eq(boardEntries.roomId, roomId), eq(boardEntries.kind, "request")));
    expect(requests.map((entry) => entry.content.help === true).sort()).toEqual([false, true, true]);
  });

  it("refuses itself, unknown and unavailable teammates (listing them), and more than two a run", async () => {
    const { roomId } = await createTestRoom(database.db);
    const songwriter = await agentByPersona(database, roomId, "songwriter");
    const curator = await agentByPersona(database, roomId, "curator");
    await setAgentModel(database, songwriter.id, "mock:greedy");
    await setAgentModel(database, curator.id, "mock:missing");
    await startAgentRun(database.db, roomId, { agentId: songwriter.id, prompt: "Write" }, alice);
    await settled(roomId, 3);
    const stepEvents = await database.db
      .select()
      .from(events)
      .where(and(eq(events.roomId, roomId), eq(events.type, "run.step")));
    const first = stepEvents
      .map((row) => row.payload as PayloadOf<"run.step">)
      .find((step) => step.agentId === songwriter.id && step.step === 0);
    // Results come in the order the tools finished; put them back in the order of the calls.
    const byCall = new Map(
      first!.toolResults.map((result) => [result.id, result.output as { ok: boolean; error?: string; status?: string }]),
    );
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
      if (call === 0)
        return { toolCall: { name: "request_help", arguments: { target: "scene-painter", question: "Which line should open the song?" } } };
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
    expect(standIn.userText(2)).toMatch(
      /Scene Painter answered your help request \("Which line should open the song\?"\): Open with the keeper lighting the lamp\./,
    );
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
    expect(standIn.userText(2)).toMatch(
      /Scene Painter answered your help request \("Where should the song begin\?"\): Open on the breakwater at dawn\./,
    );
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
    for (const [persona, model] of chain)
      await setAgentModel(database, (await agentByPersona(database, roomId, persona)).id, `mock:${model}`);
    const songwriter = await agentByPersona(database, roomId, "songwriter");
    const curator = await agentByPersona(database, roomId, "curator");
    await startAgentRun(database.db, roomId, { agentId: songwriter.id, prompt: "Write" }, alice);
    const all = await settled(roomId, 4);

    expect(all.map((run) => run.chainDepth).sort()).toEqual([0, 1, 2, 3]);
    const last = all.find((run) => run.agentId === curator.id)!;
    expect(last.chainDepth).toBe(3);
    const steps = await database.db
      .select()
      .from(events)
      .where(and(eq(events.roomId, roomId), eq(events.type, "run.step")));
    const refused = steps
      .map((row) => row.payload as PayloadOf<"run.step">)
      .find((step) => step.runId === last.id && step.step === 0)!
      .toolResults.find((result) => result.name === "request_help");
    expect(refused?.output).toMatchObject({ ok: false, error: expect.stringMatching(/link 4 of a chain limited to 3/) });
    const requests = await database.db
      .select()
      .from(boardEntries)
      .where(and(eq(boardEntries.roomId, roomId), eq(boardEntries.kind, "request")));
    expect(requests).toHaveLength(3);
  });
});
