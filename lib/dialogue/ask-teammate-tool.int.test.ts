import { and, asc, eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { agents, buildReviews, dialogues, events, runs } from "@/db/schema";
import { startAgentRun } from "@/lib/agents/start-agent-run";
import { startBuildReview } from "@/lib/build-review/start-build-review";
import { openDialogue } from "@/lib/dialogue/open-dialogue";
import { writeRoomEvents } from "@/lib/events/write-room-events";
import { createRoom } from "@/lib/rooms/create-room";
import { DEFAULT_ROOM_SETTINGS, type RoomSettingsPatch } from "@/lib/rooms/room-settings";
import { activeRun } from "@/test/active-run";
import { agentByPersona, startTestWorker } from "@/test/agents";
import { alice, createTestRoom, eventually } from "@/test/fixtures";
import { mockResolver, scriptedSteps, setAgentModel, textStep, toolStep } from "@/test/mock-models";
import { type TestDatabase, createTestDatabase } from "@/test/test-database";
import { createAgentTools } from "@/lib/agents/tools";
import { createAskTeammateTool } from "./ask-teammate-tool";

let database: TestDatabase;

beforeAll(async () => {
  database = await createTestDatabase();
});
afterAll(async () => {
  await database.destroy();
});

const call = { toolCallId: "call-1", messages: [], context: {} };
const QUESTION = { target: "scene-painter", question: "Which light should the verse have: dawn or dusk?" };

/** A queued run of the room's `persona`, and how to build an attempt of it. */
async function runOf(roomId: string, persona: string, settings: RoomSettingsPatch = {}) {
  const team = await database.db.select().from(agents).where(eq(agents.roomId, roomId));
  const agent = team.find((member) => member.persona === persona)!;
  const started = await startAgentRun(database.db, roomId, { agentId: agent.id, prompt: "Work." }, alice);
  const [run] = await database.db.select().from(runs).where(eq(runs.id, started.id));
  return { run: run!, agent, team, attempt: () => activeRun(database, { run: run!, agent, team, settings }) };
}

const ask = (active: ReturnType<typeof activeRun>, input: { target: string; question: string }) =>
  createAskTeammateTool(active).ask_teammate!.execute!(input, call);

describe("ask_teammate", () => {
  it("is offered to every agent of every template while dialogues are on, and not in a dialogue's own turns", async () => {
    for (const template of ["creative-canvas", "build-review"]) {
      const { room, agents: team } = await createRoom(database.db, { title: template, template });
      for (const member of team) {
        const { attempt } = await runOf(room.id, member.persona);
        expect(Object.keys(createAgentTools(attempt())), `${template}/${member.persona}`).toContain("ask_teammate");
      }
    }
    const { roomId } = await createTestRoom(database.db);
    const { run, agent, team } = await runOf(roomId, "songwriter");
    expect(Object.keys(createAgentTools(activeRun(database, { run, agent, team, settings: { dialogue_max_rounds: 0 } })))).not.toContain(
      "ask_teammate",
    );
    const turn = { ...run, purpose: { kind: "answer" as const, dialogueId: "d" } };
    expect(Object.keys(createAgentTools(activeRun(database, { run: turn, agent, team })))).not.toContain("ask_teammate");
  });

  it("gives the Coder of a build review its one question in its ready step, and none while it writes the code", async () => {
    const { room } = await createRoom(database.db, { title: "Review", template: "build-review" });
    const started = await startBuildReview(database.db, room.id, "Count words", { id: "human:ada", name: "Ada" });
    const reviewId = started.payload.review.id;
    const step = async (kind: "ready" | "code") => {
      const { run, agent, team } = await runOf(room.id, "coder");
      return activeRun(database, {
        run: { ...run, correlationId: started.correlation_id, purpose: { kind, buildReviewId: reviewId } },
        agent,
        team,
      });
    };
    expect(Object.keys(createAgentTools(await step("code")))).not.toContain("ask_teammate");
    const ready = await step("ready");
    expect(Object.keys(createAgentTools(ready))).toContain("ask_teammate");
    expect(await ask(ready, { target: "architect", question: "Should an empty input return an empty list?" })).toMatchObject({
      ok: true,
      note: "Architect will answer. Finish your turn now; you will write the code once the dialogue ends.",
    });
    const [review] = await database.db.select().from(buildReviews).where(eq(buildReviews.id, reviewId));
    expect(review).toMatchObject({ status: "in_dialogue", clarified: true });
    // A second question, from another ready step of the same review: refused, and nothing written.
    const talks = await database.db.select().from(dialogues).where(eq(dialogues.roomId, room.id));
    expect(await ask(await step("ready"), { target: "architect", question: "And for a missing value?" })).toEqual({
      ok: false,
      error: "You have asked your one question already; finish your turn, and you will write the code next.",
    });
    expect(await database.db.select().from(dialogues).where(eq(dialogues.roomId, room.id))).toEqual(talks);
  });

  it("opens a dialogue with the teammate asked, in the run's workflow, once per run", async () => {
    const { roomId } = await createTestRoom(database.db);
    const { run, agent, attempt } = await runOf(roomId, "songwriter");
    const painter = await agentByPersona(database, roomId, "scene-painter");
    const asked = await ask(attempt(), QUESTION);
    expect(asked).toMatchObject({ ok: true, dialogueId: expect.any(String) });
    const [talk] = await database.db.select().from(dialogues).where(eq(dialogues.roomId, roomId));
    expect(talk).toMatchObject({
      askerAgentId: agent.id,
      addresseeAgentId: painter.id,
      topic: QUESTION.question,
      reason: "question",
      correlationId: run.correlationId,
      buildReviewId: null,
    });
    const [answer] = await database.db
      .select()
      .from(runs)
      .where(and(eq(runs.roomId, roomId), eq(runs.agentId, painter.id)));
    expect(answer).toMatchObject({
      trigger: "dialogue",
      parentRunId: run.id,
      correlationId: run.correlationId,
      purpose: { kind: "answer", dialogueId: talk!.id },
    });

    // The same call taken again by a later attempt is the same question, not a second one.
    expect(await ask(attempt(), QUESTION)).toMatchObject({ ok: true, dialogueId: talk!.id });
    expect(await ask(attempt(), { target: "Storyteller", question: "And the ending?" })).toEqual({
      ok: false,
      error: "You have asked your question in this run already; carry on with what you know.",
    });
    expect(await database.db.select().from(dialogues).where(eq(dialogues.roomId, roomId))).toHaveLength(1);
  });

  it("finds the teammate however its name is written, as the command bar does", async () => {
    const { roomId } = await createTestRoom(database.db, { max_open_dialogues: 3 });
    const painter = await agentByPersona(database, roomId, "scene-painter");
    for (const target of ["ScenePainter", "scene painter", "@Scene-Painter"]) {
      const { attempt } = await runOf(roomId, "songwriter", { max_open_dialogues: 3 });
      expect(await ask(attempt(), { ...QUESTION, target }), target).toMatchObject({ ok: true, dialogueId: expect.any(String) });
    }
    const talks = await database.db.select().from(dialogues).where(eq(dialogues.roomId, roomId));
    expect(talks.map((talk) => talk.addresseeAgentId)).toEqual([painter.id, painter.id, painter.id]);
  });

  it("refuses a target that is not a teammate, naming those it can ask, and changes nothing", async () => {
    const { roomId } = await createTestRoom(database.db);
    const { attempt } = await runOf(roomId, "songwriter");
    for (const target of ["songwriter", "the moon"]) {
      const refused = await ask(attempt(), { ...QUESTION, target });
      expect(refused).toMatchObject({
        ok: false,
        error: expect.stringMatching(/is not a teammate you can ask\. Ask one of: .*Scene Painter \(scene-painter\)/),
      });
      expect((refused as { error: string }).error).not.toMatch(/Songwriter \(songwriter\)/);
    }
    expect(await database.db.select().from(dialogues).where(eq(dialogues.roomId, roomId))).toEqual([]);
    expect(
      await database.db
        .select()
        .from(events)
        .where(and(eq(events.roomId, roomId), eq(events.type, "dialogue.opened"))),
    ).toEqual([]);
  });

  it("keeps to the room's max_open_dialogues at once (two by default)", async () => {
    const { roomId } = await createTestRoom(database.db);
    const [curator, weaver, storyteller] = await Promise.all(
      ["curator", "idea-weaver", "storyteller"].map((persona) => agentByPersona(database, roomId, persona)),
    );
    for (const asker of [curator!, weaver!]) {
      await writeRoomEvents(database.db, roomId, (tx, emit, at) =>
        openDialogue(tx, emit, {
          roomId,
          correlationId: "other",
          asker,
          addressee: storyteller!,
          topic: "?",
          reason: "question",
          settings: DEFAULT_ROOM_SETTINGS,
          buildReviewId: null,
          chainDepth: 0,
          parentRunId: null,
          at,
        }),
      );
    }
    const { attempt } = await runOf(roomId, "songwriter");
    expect(await ask(attempt(), QUESTION)).toEqual({
      ok: false,
      error: "The room has 2 dialogues under way already; carry on with what you know.",
    });
    expect(await database.db.select().from(dialogues).where(eq(dialogues.roomId, roomId))).toHaveLength(2);
  });

  it("is how a model with tools asks in a creative room: the dialogue runs, and its words open no second one", async () => {
    const models = {
      // It asks with the tool, and its last words also name the teammate: the structured question is the one taken.
      asks: scriptedSteps([
        toolStep([{ id: "q", name: "ask_teammate", input: QUESTION }]),
        textStep("Scene Painter, which light should it be?"),
      ]),
      answers: scriptedSteps([textStep("Dusk: the harbour lamps are lit.")]),
    };
    // The tests above leave queued runs they only look at: a worker would take those, the oldest, first.
    await database.db.update(runs).set({ status: "cancelled", finishedAt: new Date() }).where(eq(runs.status, "queued"));
    const worker = await startTestWorker(database, { resolveModel: mockResolver(models) });
    try {
      const { roomId } = await createTestRoom(database.db);
      const songwriter = await agentByPersona(database, roomId, "songwriter");
      const painter = await agentByPersona(database, roomId, "scene-painter");
      await setAgentModel(database, songwriter.id, "mock:asks");
      await setAgentModel(database, painter.id, "mock:answers");
      const run = await startAgentRun(database.db, roomId, { agentId: songwriter.id, prompt: "Write" }, alice);
      const talks = await eventually(async () => {
        const rows = await database.db.select().from(dialogues).where(eq(dialogues.roomId, roomId));
        expect(rows.length).toBeGreaterThan(0);
        expect(rows.every((row) => row.status !== "open")).toBe(true);
        const all = await database.db.select().from(runs).where(eq(runs.roomId, roomId));
        expect(all.every((row) => row.status !== "queued" && row.status !== "running")).toBe(true);
        return rows;
      }, 20_000);
      expect(talks).toEqual([
        expect.objectContaining({
          reason: "question",
          topic: QUESTION.question,
          correlationId: run.correlationId,
          addresseeAgentId: painter.id,
        }),
      ]);
      const messages = await database.db
        .select()
        .from(events)
        .where(and(eq(events.roomId, roomId), eq(events.type, "dialogue.message")))
        .orderBy(asc(events.seq));
      expect(messages[0]!.payload).toMatchObject({ round: 1, fromAgentId: painter.id, text: "Dusk: the harbour lamps are lit." });
    } finally {
      await worker.stop();
    }
  });
});
