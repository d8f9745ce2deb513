import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { type BuildReview, buildReviews, dialogues } from "@/db/schema";
import { openDialogue } from "@/lib/dialogue/open-dialogue";
import { appendEvents, writeRoomEvents } from "@/lib/events/write-room-events";
import { createRoom } from "@/lib/rooms/create-room";
import { getRoomSnapshot } from "@/lib/rooms/get-room-snapshot";
import { DEFAULT_ROOM_SETTINGS } from "@/lib/rooms/room-settings";
import { useTestDatabase } from "@/test/test-runtime";
import { startBuildReview } from "./start-build-review";

const context = useTestDatabase();

const ADA = { id: "human:ada", name: "Ada" };

/** Enough of other goings-on that a review's first events fall out of the snapshot's recent ones. */
async function muchLater(roomId: string) {
  const drafts = Array.from({ length: 250 }, (_, index) => ({
    type: "seat.taken" as const,
    actor: ADA,
    payload: { seatId: `s${index}`, displayName: `Guest ${index}` },
  }));
  await appendEvents(context.database.db, roomId, drafts);
}

async function reviewRoom() {
  const { room, agents } = await createRoom(context.database.db, { title: "Review", template: "build-review" });
  const persona = (name: string) => agents.find((agent) => agent.persona === name)!;
  return { roomId: room.id, persona };
}

async function start(roomId: string, task: string, change: Partial<BuildReview> = {}) {
  const started = await startBuildReview(context.database.db, roomId, task, ADA);
  const id = started.payload.review.id;
  if (Object.keys(change).length) await context.database.db.update(buildReviews).set(change).where(eq(buildReviews.id, id));
  return id;
}

describe("the room snapshot's build reviews and dialogues", () => {
  it("carries the review and the dialogue under way, read from their tables, however long ago they began", async () => {
    const { roomId, persona } = await reviewRoom();
    const reviewer = persona("reviewer");
    const coder = persona("coder");
    const verdict = {
      verdict: "changes" as const,
      issues: [{ severity: "major" as const, text: "Empty input." }],
      openQuestions: ["What of an empty input?"],
      version: 1,
      round: 1,
    };
    const reviewId = await start(roomId, "Count words", { status: "in_dialogue", codeVersion: 1, lastVerdict: verdict });
    const { result: dialogue } = await writeRoomEvents(context.database.db, roomId, (tx, emit, at) =>
      openDialogue(tx, emit, {
        roomId,
        correlationId: "c",
        asker: reviewer,
        addressee: coder,
        topic: "What of an empty input?",
        reason: "open question",
        settings: DEFAULT_ROOM_SETTINGS,
        buildReviewId: reviewId,
        chainDepth: 0,
        parentRunId: null,
        at,
      }),
    );
    const said = {
      dialogueId: dialogue!.id,
      round: 1,
      fromAgentId: coder.id,
      toAgentId: reviewer.id,
      text: "An empty list.",
      runId: "run-1",
      durationMs: 900,
      inputTokens: 5,
      outputTokens: 6,
      costUsd: 0,
      costKnown: true,
    };
    await appendEvents(context.database.db, roomId, [{ type: "dialogue.message", actor: coder, payload: said }]);
    await muchLater(roomId);

    const snapshot = await getRoomSnapshot(context.database.db, roomId);
    expect(
      snapshot.recentEvents.some(
        (event) => event.type === "review.started" || event.type === "dialogue.opened" || event.type === "dialogue.message",
      ),
    ).toBe(false);
    expect(snapshot.reviews).toEqual([
      {
        id: reviewId,
        task: "Count words",
        maxRounds: 3,
        round: 1,
        version: 1,
        verdict: { reviewId, round: 1, version: 1, verdict: "changes", issues: verdict.issues, openQuestions: verdict.openQuestions },
        closed: null,
      },
    ]);
    expect(snapshot.dialogues).toEqual([
      {
        dialogue: expect.objectContaining({
          id: dialogue!.id,
          askerAgentId: reviewer.id,
          addresseeAgentId: coder.id,
          reviewId,
          maxRounds: 2,
        }),
        messages: [{ ...said, at: expect.any(String) }],
        closed: null,
      },
    ]);
  });

  it("keeps the latest review once it closed, and leaves out closed dialogues and earlier closed reviews", async () => {
    const { roomId } = await reviewRoom();
    await start(roomId, "First", { status: "not_approved", outcome: "No consensus after 3 rounds.", round: 3 });
    const latest = await start(roomId, "Second", {
      status: "approved",
      outcome: "Approved in round 2, version 2.",
      round: 2,
      codeVersion: 2,
      lastVerdict: { verdict: "approve", issues: [], openQuestions: [], version: 2, round: 2 },
    });
    await context.database.db.update(dialogues).set({ status: "resolved" }).where(eq(dialogues.roomId, roomId));
    await muchLater(roomId);
    const snapshot = await getRoomSnapshot(context.database.db, roomId);
    expect(snapshot.reviews).toEqual([
      expect.objectContaining({
        id: latest,
        round: 2,
        version: 2,
        closed: { reviewId: latest, outcome: "approved", rounds: 2, remainingIssues: [], reason: "Approved in round 2, version 2." },
      }),
    ]);
    expect(snapshot.dialogues).toEqual([]);
  });

  it("lists every review under way, oldest first, the latest last", async () => {
    const { roomId } = await reviewRoom();
    const first = await start(roomId, "First");
    await start(roomId, "Closed between", { status: "cancelled", outcome: "Stopped." });
    const last = await start(roomId, "Last");
    expect((await getRoomSnapshot(context.database.db, roomId)).reviews!.map((review) => review.id)).toEqual([first, last]);
  });
});
