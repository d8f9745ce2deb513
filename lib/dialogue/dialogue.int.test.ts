import { MockLanguageModelV4 } from "ai/test";
import { and, eq, sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { dialogues, events, rooms, runs } from "@/db/schema";
import { cancelRun } from "@/lib/agents/cancel-run";
import { startAgentRun } from "@/lib/agents/start-agent-run";
import { writeRoomEvents } from "@/lib/events/write-room-events";
import { readWorkflow } from "@/lib/workflows/read-workflow";
import { agentByPersona, startTestWorker } from "@/test/agents";
import { alice, createTestRoom, eventually } from "@/test/fixtures";
import { mockResolver, scriptedSteps, setAgentModel, textStep, toolStep } from "@/test/mock-models";
import { type TestDatabase, createTestDatabase } from "@/test/test-database";
import { parseRoomSettings } from "@/lib/rooms/room-settings";
import { openDialogue } from "./open-dialogue";

let database: TestDatabase;
let worker: Awaited<ReturnType<typeof startTestWorker>>;

/** A model that answers nothing until its call is stopped. */
const silent = new MockLanguageModelV4({
  doStream: ({ abortSignal }) =>
    new Promise((_, reject) => abortSignal?.addEventListener("abort", () => reject(abortSignal.reason), { once: true })),
});

const read = (id: string) => ({ id, name: "read_shared_context", input: {} });
const models = {
  asks: scriptedSteps([textStep("Scene Painter, which light should the verse have?")]),
  silent,
  // An answer in a dialogue that turns to a third teammate.
  answersAndAsks: scriptedSteps([textStep("Golden hour light. Storyteller, which ending do you have in mind?")]),
  // A question in an earlier step, and last words that ask nobody.
  asksEarlier: scriptedSteps([
    toolStep([read("r1")], "Scene Painter, which light should the verse have?"),
    textStep("The verse is on the canvas."),
  ]),
  // Two steps that address two teammates: the newer one is the run's question.
  asksTwice: scriptedSteps([
    toolStep([read("r1")], "Storyteller, which ending do you have in mind?"),
    toolStep([read("r2")], "Scene Painter, which light should the verse have?"),
    textStep("The verse is on the canvas."),
  ]),
  // The question goes as a help request; the words that go with it ask nothing more.
  asksForHelp: scriptedSteps([
    toolStep(
      [{ id: "h1", name: "request_help", input: { target: "scene-painter", question: "Which light should the verse have?" } }],
      "Scene Painter, which light should the verse have?",
    ),
    textStep("The verse is on the canvas."),
  ]),
};

beforeAll(async () => {
  database = await createTestDatabase();
  worker = await startTestWorker(database, { resolveModel: mockResolver(models) });
});
afterAll(async () => {
  await worker.stop();
  await database.destroy();
});

async function settled(roomId: string) {
  return eventually(async () => {
    const rows = await database.db.select().from(runs).where(eq(runs.roomId, roomId));
    expect(rows.every((run) => run.status !== "queued" && run.status !== "running")).toBe(true);
    return rows;
  }, 20_000);
}

describe("dialogues outside a build review", () => {
  it("open when an agent's message addresses a teammate, and end after the room's rounds", async () => {
    const { roomId } = await createTestRoom(database.db);
    const songwriter = await agentByPersona(database, roomId, "songwriter");
    const painter = await agentByPersona(database, roomId, "scene-painter");
    await setAgentModel(database, songwriter.id, "mock:asks");
    const run = await startAgentRun(database.db, roomId, { agentId: songwriter.id, prompt: "Write" }, alice);
    const all = await settled(roomId);
    const [talk] = await database.db.select().from(dialogues).where(eq(dialogues.roomId, roomId));
    expect(talk).toMatchObject({
      askerAgentId: songwriter.id,
      addresseeAgentId: painter.id,
      reason: "vocative",
      topic: "Scene Painter, which light should the verse have?",
      correlationId: run.correlationId,
      // The asker keeps asking the same question: it is never satisfied, so the rounds run out.
      status: "unresolved",
      rounds: 2,
    });
    const turns = all.filter((row) => row.trigger === "dialogue").sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime());
    expect(turns).toHaveLength(4);
    // The second round's turns read the conversation so far, not only the message before them.
    const said = (
      await database.db
        .select({ payload: events.payload })
        .from(events)
        .where(and(eq(events.roomId, roomId), eq(events.type, "dialogue.message")))
        .orderBy(events.seq)
    ).map(({ payload }) => (payload as { text: string }).text);
    expect(said).toHaveLength(4);
    expect(turns[0]!.prompt).not.toContain("The conversation so far");
    const [, , secondAnswer, secondReply] = turns;
    expect(secondAnswer!.prompt).toContain("The conversation so far");
    expect(secondAnswer!.prompt).toContain(`- Scene Painter: ${said[0]}`);
    expect(secondReply!.prompt).toContain(`- Scene Painter: ${said[0]}`);
    expect(secondReply!.prompt).toContain(`- Songwriter: ${said[1]}`);

    // Each message says whom it is for and what follows it; a dialogue outside a review has nothing after its end.
    const log = await database.db
      .select({
        type: events.type,
        agent: events.agent,
        targetAgent: events.targetAgent,
        nextSteps: events.nextSteps,
        payload: events.payload,
      })
      .from(events)
      .where(and(eq(events.roomId, roomId), sql`${events.type} like 'dialogue.%'`))
      .orderBy(events.seq);
    expect(log.map(({ type, agent, targetAgent, nextSteps }) => ({ type, agent, targetAgent, nextSteps }))).toEqual([
      { type: "dialogue.opened", agent: songwriter.id, targetAgent: painter.id, nextSteps: ["dialogue.message"] },
      { type: "dialogue.message", agent: painter.id, targetAgent: songwriter.id, nextSteps: ["dialogue.message"] },
      { type: "dialogue.message", agent: songwriter.id, targetAgent: painter.id, nextSteps: ["dialogue.message"] },
      { type: "dialogue.message", agent: painter.id, targetAgent: songwriter.id, nextSteps: ["dialogue.message"] },
      { type: "dialogue.message", agent: songwriter.id, targetAgent: painter.id, nextSteps: ["dialogue.closed"] },
      { type: "dialogue.closed", agent: songwriter.id, targetAgent: null, nextSteps: [] },
    ]);
    // The Songwriter's model has no known price: its messages, and the dialogue's totals, say so rather than cost $0.
    const costs = log.filter((row) => row.type !== "dialogue.opened").map((row) => (row.payload as { costKnown: boolean }).costKnown);
    expect(costs).toEqual([true, false, true, false, false]);
  });

  it("open from a question in any step of a run, one a run, from the newest step that asks", async () => {
    for (const model of ["asksEarlier", "asksTwice"]) {
      const { roomId } = await createTestRoom(database.db, { dialogue_max_rounds: 1 });
      const songwriter = await agentByPersona(database, roomId, "songwriter");
      const painter = await agentByPersona(database, roomId, "scene-painter");
      await setAgentModel(database, songwriter.id, `mock:${model}`);
      const run = await startAgentRun(database.db, roomId, { agentId: songwriter.id, prompt: "Write" }, alice);
      const all = await settled(roomId);
      const talks = await database.db.select().from(dialogues).where(eq(dialogues.roomId, roomId));
      expect(talks).toHaveLength(1);
      expect(talks[0]).toMatchObject({
        askerAgentId: songwriter.id,
        addresseeAgentId: painter.id,
        reason: "vocative",
        topic: "Scene Painter, which light should the verse have?",
        correlationId: run.correlationId,
      });
      // The Scene Painter's answer was asked by this run.
      expect(all.find((row) => row.trigger === "dialogue" && row.agentId === painter.id)).toMatchObject({ parentRunId: run.id });
    }
  });

  it("open none from a dialogue's own turns: an answer that turns to a third teammate stays in its dialogue", async () => {
    const { roomId } = await createTestRoom(database.db, { dialogue_max_rounds: 1 });
    const songwriter = await agentByPersona(database, roomId, "songwriter");
    const painter = await agentByPersona(database, roomId, "scene-painter");
    await setAgentModel(database, songwriter.id, "mock:asks");
    await setAgentModel(database, painter.id, "mock:answersAndAsks");
    await startAgentRun(database.db, roomId, { agentId: songwriter.id, prompt: "Write" }, alice);
    const all = await settled(roomId);
    const answer = all.find((row) => row.agentId === painter.id && row.purpose?.kind === "answer");
    expect(answer).toMatchObject({ status: "succeeded" });
    const talks = await database.db.select().from(dialogues).where(eq(dialogues.roomId, roomId));
    expect(talks.map((talk) => [talk.askerAgentId, talk.addresseeAgentId])).toEqual([[songwriter.id, painter.id]]);
  });

  it("open none from the words of a step that asked through a tool: the question is on its way", async () => {
    const { roomId } = await createTestRoom(database.db);
    const songwriter = await agentByPersona(database, roomId, "songwriter");
    await setAgentModel(database, songwriter.id, "mock:asksForHelp");
    const run = await startAgentRun(database.db, roomId, { agentId: songwriter.id, prompt: "Write" }, alice);
    const all = await settled(roomId);
    expect(all.find((row) => row.id === run.id)!.status).toBe("succeeded");
    // No dialogue asks again what the help request (its helper ran) asked.
    expect(await database.db.select().from(dialogues).where(eq(dialogues.roomId, roomId))).toEqual([]);
    expect(all.filter((row) => row.trigger === "request")).toHaveLength(1);
  });

  it("end 'cancelled' when a turn is stopped, which is no error of their workflow", async () => {
    const { roomId } = await createTestRoom(database.db);
    const songwriter = await agentByPersona(database, roomId, "songwriter");
    const painter = await agentByPersona(database, roomId, "scene-painter");
    await setAgentModel(database, songwriter.id, "mock:asks");
    await setAgentModel(database, painter.id, "mock:silent");
    const run = await startAgentRun(database.db, roomId, { agentId: songwriter.id, prompt: "Write" }, alice);
    const answering = await eventually(async () => {
      const [turn] = await database.db
        .select()
        .from(runs)
        .where(and(eq(runs.roomId, roomId), eq(runs.agentId, painter.id), eq(runs.status, "running")));
      expect(turn).toBeDefined();
      return turn!;
    }, 20_000);
    expect(await cancelRun(database.db, roomId, answering.id, alice)).toBe("stopping");
    await settled(roomId);
    const [talk] = await database.db.select().from(dialogues).where(eq(dialogues.roomId, roomId));
    expect(talk).toMatchObject({ status: "cancelled", rounds: 0, remaining: "Scene Painter's turn cancelled." });
    const [closing] = await database.db
      .select()
      .from(events)
      .where(and(eq(events.roomId, roomId), eq(events.type, "dialogue.closed")));
    expect(closing).toMatchObject({ status: "success", payload: expect.objectContaining({ outcome: "cancelled" }) });
    const trace = await readWorkflow(database.db, roomId, run.correlationId);
    expect(trace.runList.map((turn) => turn.status)).toEqual(["succeeded", "cancelled"]);
    expect(trace.status).toBe("complete");
  });

  it("open none when dialogues are off", async () => {
    const { roomId } = await createTestRoom(database.db, { dialogue_max_rounds: 0 });
    const songwriter = await agentByPersona(database, roomId, "songwriter");
    await setAgentModel(database, songwriter.id, "mock:asks");
    await startAgentRun(database.db, roomId, { agentId: songwriter.id, prompt: "Write" }, alice);
    await settled(roomId);
    expect(await database.db.select().from(dialogues).where(eq(dialogues.roomId, roomId))).toEqual([]);
  });

  it("hold at most the room's max_open_dialogues open at once (2 unless the room says otherwise)", async () => {
    const openThree = async (roomId: string) => {
      const [asker, ...addressees] = await Promise.all(
        ["songwriter", "scene-painter", "storyteller", "curator"].map((persona) => agentByPersona(database, roomId, persona)),
      );
      const opened = [];
      for (const addressee of addressees) {
        const { result } = await writeRoomEvents(database.db, roomId, async (tx, emit, at) => {
          const [room] = await tx.select({ settings: rooms.settings }).from(rooms).where(eq(rooms.id, roomId));
          return openDialogue(tx, emit, {
            roomId,
            correlationId: "c",
            asker: asker!,
            addressee: addressee!,
            topic: "Which light?",
            reason: "question",
            settings: parseRoomSettings(room!.settings),
            buildReviewId: null,
            chainDepth: 0,
            parentRunId: null,
            at,
          });
        });
        opened.push(result?.addresseeAgentId ?? null);
      }
      return { opened, addressees: addressees.map((addressee) => addressee!.id) };
    };
    const byDefault = await openThree((await createTestRoom(database.db)).roomId);
    expect(byDefault.opened).toEqual([byDefault.addressees[0], byDefault.addressees[1], null]);
    const roomier = await openThree((await createTestRoom(database.db, { max_open_dialogues: 3 })).roomId);
    expect(roomier.opened).toEqual(roomier.addressees);
  });
});
