import { and, asc, eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { type Agent, type Run, agents, buildReviews, canvasNodes, dialogues, events, runs } from "@/db/schema";
import { startAgentRun } from "@/lib/agents/start-agent-run";
import { readCodeVersions } from "@/lib/build-review/read-code-versions";
import { startBuildReview } from "@/lib/build-review/start-build-review";
import { createNode } from "@/lib/canvas/create-node";
import { deleteNode } from "@/lib/canvas/delete-node";
import { boxOf, GAP, shapeOf } from "@/lib/canvas/free-spot";
import { openDialogue } from "@/lib/dialogue/open-dialogue";
import { appendEvents, writeRoomEvents } from "@/lib/events/write-room-events";
import { createRoom } from "@/lib/rooms/create-room";
import { DEFAULT_ROOM_SETTINGS } from "@/lib/rooms/room-settings";
import { activeRun } from "@/test/active-run";
import { alice } from "@/test/fixtures";
import { useTestDatabase } from "@/test/test-runtime";
import { createReviewTools } from "./tools";

const context = useTestDatabase();

const call = { toolCallId: "call-1", messages: [], context: {} };
const ADA = { id: "human:ada", name: "Ada" };

async function reviewRoom() {
  const { room } = await createRoom(context.database.db, { title: "Review", template: "build-review" });
  const team = await context.database.db.select().from(agents).where(eq(agents.roomId, room.id));
  return { roomId: room.id, team, persona: (name: string) => team.find((member) => member.persona === name)! };
}

/** A run of `agent` playing `purpose` in workflow `correlationId`, and how to build an attempt of it at a step. */
async function runAs(roomId: string, team: Agent[], agent: Agent, purpose: NonNullable<Run["purpose"]>, correlationId: string) {
  const started = await startAgentRun(context.database.db, roomId, { agentId: agent.id, prompt: "Work." }, alice);
  const [row] = await context.database.db.select().from(runs).where(eq(runs.id, started.id));
  const run = { ...row!, purpose, correlationId };
  return (step = 0) => activeRun(context.database, { run, agent, team, step });
}

async function coderOf(roomId: string, team: Agent[], coder: Agent, task = "Count words") {
  const started = await startBuildReview(context.database.db, roomId, task, ADA);
  const reviewId = started.payload.review.id;
  const attempt = await runAs(roomId, team, coder, { kind: "code", buildReviewId: reviewId }, started.correlation_id);
  const submit = (code: string, step = 0) => createReviewTools(attempt(step)).submit_code!.execute!({ language: "typescript", code }, call);
  return { reviewId, submit };
}

const nodesOf = (roomId: string) => context.database.db.select().from(canvasNodes).where(eq(canvasNodes.roomId, roomId));

function overlaps(a: ReturnType<typeof boxOf>, b: ReturnType<typeof boxOf>): boolean {
  return a.x < b.x + b.width + GAP.x && b.x < a.x + a.width + GAP.x && a.y < b.y + b.height + GAP.y && b.y < a.y + a.height + GAP.y;
}

describe("submit_code", () => {
  it("places each review's code in free space, clear of what the canvas holds", async () => {
    const { roomId, team, persona } = await reviewRoom();
    // People's notes where the code used to go, whatever else was there.
    for (const [x, y] of [
      [420, 0],
      [0, 0],
      [380, 300],
    ]) {
      await createNode(context.database.db, roomId, { kind: "human", ...ADA }, { text: "A note in the way of the code.", x, y });
    }
    const first = await coderOf(roomId, team, persona("coder"), "Count words");
    const second = await coderOf(roomId, team, persona("coder"), "Reverse words");
    expect(await first.submit("export const count = (s: string) => s.split(' ').length;")).toMatchObject({ ok: true, version: 1 });
    expect(await second.submit("export const reverse = (s: string) => s.split(' ').reverse().join(' ');")).toMatchObject({
      ok: true,
      version: 1,
    });
    const boxes = (await nodesOf(roomId)).map((node) => ({ id: node.id, kind: node.kind, box: boxOf(shapeOf(node)) }));
    const code = boxes.filter((node) => node.kind === "code");
    expect(code).toHaveLength(2);
    for (const mine of code) {
      for (const other of boxes.filter((node) => node.id !== mine.id))
        expect(overlaps(mine.box, other.box), `${mine.id} over ${other.kind}`).toBe(false);
    }
  });

  it("writes the code to a new node when someone deleted the review's, and goes on", async () => {
    const { roomId, team, persona } = await reviewRoom();
    const { reviewId, submit } = await coderOf(roomId, team, persona("coder"));
    const first = (await submit("export const version = 1;")) as { ok: true; nodeId: string };
    await deleteNode(context.database.db, roomId, first.nodeId, { kind: "human", ...ADA });
    const second = await submit("export const version = 2;", 1);
    expect(second).toMatchObject({ ok: true, version: 2, nodeId: expect.any(String) });
    const { nodeId } = second as { nodeId: string };
    expect(nodeId).not.toBe(first.nodeId);
    expect(await nodesOf(roomId)).toEqual([
      expect.objectContaining({ id: nodeId, kind: "code", text: "export const version = 2;", version: 1 }),
    ]);
    const [review] = await context.database.db.select().from(buildReviews).where(eq(buildReviews.id, reviewId));
    expect(review).toMatchObject({ codeNodeId: nodeId, codeVersion: 2 });
    const history = await readCodeVersions(context.database.db, roomId, reviewId);
    expect(history.versions.map((version) => [version.version, version.code])).toEqual([
      [1, "export const version = 1;"],
      [2, "export const version = 2;"],
    ]);
  });

  it("carries each version's code in its review.code event, and still reads versions from events written without it", async () => {
    const { roomId, team, persona } = await reviewRoom();
    const coder = persona("coder");
    const { reviewId, submit } = await coderOf(roomId, team, coder);
    const { nodeId } = (await submit("const a = 1;")) as { nodeId: string };
    await submit("const a = 2;", 1);
    const announced = await context.database.db
      .select()
      .from(events)
      .where(and(eq(events.roomId, roomId), eq(events.type, "review.code")))
      .orderBy(asc(events.seq));
    expect(announced.map((event) => event.payload)).toEqual([
      expect.objectContaining({ version: 1, code: "const a = 1;", nodeId }),
      expect.objectContaining({ version: 2, code: "const a = 2;", nodeId }),
    ]);
    // A version announced the older way: its code in the node write that followed it.
    const [review] = await context.database.db.select().from(buildReviews).where(eq(buildReviews.id, reviewId));
    await appendEvents(context.database.db, roomId, [
      {
        type: "review.code",
        actor: coder,
        correlationId: review!.correlationId,
        payload: { reviewId, nodeId, version: 3, language: "python" },
      },
      {
        type: "node.updated",
        actor: ADA,
        correlationId: review!.correlationId,
        payload: { nodeId, changes: { x: 5 }, version: 4, updatedAt: new Date().toISOString() },
      },
      {
        type: "node.updated",
        actor: coder,
        correlationId: review!.correlationId,
        payload: { nodeId, changes: { text: "a = 3" }, version: 5, updatedAt: new Date().toISOString() },
      },
    ]);
    const history = await readCodeVersions(context.database.db, roomId, reviewId);
    expect(history.versions.map((version) => [version.version, version.language, version.code])).toEqual([
      [1, "typescript", "const a = 1;"],
      [2, "typescript", "const a = 2;"],
      [3, "python", "a = 3"],
    ]);
  });
});

describe("reply_in_dialogue", () => {
  async function dialogueRoom() {
    const { roomId, team, persona } = await reviewRoom();
    const reviewer = persona("reviewer");
    const coder = persona("coder");
    const { result: dialogue } = await writeRoomEvents(context.database.db, roomId, (tx, emit, at) =>
      openDialogue(tx, emit, {
        roomId,
        correlationId: "c",
        asker: reviewer,
        addressee: coder,
        topic: "Empty input?",
        reason: "question",
        settings: DEFAULT_ROOM_SETTINGS,
        buildReviewId: null,
        chainDepth: 0,
        parentRunId: null,
        at,
      }),
    );
    const attempt = await runAs(roomId, team, reviewer, { kind: "reply", dialogueId: dialogue!.id }, "c");
    const reply = (input: { satisfied: boolean; remaining?: string }, step = 0) =>
      createReviewTools(attempt(step)).reply_in_dialogue!.execute!(input, call);
    const replies = () =>
      context.database.db
        .select()
        .from(events)
        .where(and(eq(events.roomId, roomId), eq(events.type, "dialogue.replied")));
    return { roomId, dialogueId: dialogue!.id, reviewer, coder, reply, replies };
  }

  it("records the asker's answer under the room lock, as an event, once however often the call is taken again", async () => {
    const { dialogueId, reviewer, coder, reply, replies } = await dialogueRoom();
    expect(await reply({ satisfied: false, remaining: "the null case" })).toEqual({ ok: true, satisfied: false });
    // The same call, its step taken again after a worker died: nothing is written twice.
    expect(await reply({ satisfied: false, remaining: "the null case" })).toEqual({ ok: true, satisfied: false });
    const written = await replies();
    expect(written).toEqual([
      expect.objectContaining({
        agent: reviewer.id,
        targetAgent: coder.id,
        payload: { dialogueId, satisfied: false, remaining: "the null case" },
      }),
    ]);
    const [row] = await context.database.db.select().from(dialogues).where(eq(dialogues.id, dialogueId));
    expect(row).toMatchObject({ askerSatisfied: false, remaining: "the null case", status: "open" });
  });

  it("refuses a reply to a dialogue that has ended, and changes nothing", async () => {
    const { dialogueId, reply, replies } = await dialogueRoom();
    await context.database.db.update(dialogues).set({ status: "unresolved", remaining: "left open" }).where(eq(dialogues.id, dialogueId));
    expect(await reply({ satisfied: true })).toEqual({ ok: false, error: "This dialogue has ended; there is nothing to reply to." });
    expect(await replies()).toEqual([]);
    const [row] = await context.database.db.select().from(dialogues).where(eq(dialogues.id, dialogueId));
    expect(row).toMatchObject({ askerSatisfied: null, remaining: "left open" });
  });
});
