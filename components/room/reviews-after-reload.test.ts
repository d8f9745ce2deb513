import { describe, expect, it } from "vitest";
import type { BuildReviewDto, DialogueThreadDto, PayloadOf, StoredEventType } from "@/lib/protocol";
import { FIXTURE_TIME, roomSnapshot, storedEvent } from "@/test/builders";
import { type RoomSnapshotLike, type RoomState, applyRoomEvent, initialRoomState } from "./room-state";

const stored = <T extends StoredEventType>(seq: number, type: T, payload: PayloadOf<T>) => storedEvent(type, payload, { seq });

const review = (id: string, change: Partial<BuildReviewDto> = {}): BuildReviewDto => ({
  id,
  task: `Task ${id}`,
  maxRounds: 3,
  round: 2,
  version: 1,
  verdict: {
    reviewId: id,
    round: 1,
    version: 1,
    verdict: "changes",
    issues: [{ severity: "major", text: "Empty input." }],
    openQuestions: [],
  },
  closed: null,
  ...change,
});

const message = (round: number, runId: string) => ({
  dialogueId: "d1",
  round,
  fromAgentId: "coder",
  toAgentId: "reviewer",
  text: `Answer ${round}`,
  runId,
  durationMs: 1200,
  inputTokens: 10,
  outputTokens: 20,
  costUsd: 0,
  costKnown: true,
});

const thread: DialogueThreadDto = {
  dialogue: {
    id: "d1",
    askerAgentId: "reviewer",
    addresseeAgentId: "coder",
    topic: "What of an empty input?",
    reason: "open question",
    maxRounds: 2,
    reviewId: "r2",
    openedAt: FIXTURE_TIME,
  },
  messages: [{ ...message(1, "run-1"), at: FIXTURE_TIME }],
  closed: null,
};

/** A page opened long after the review and its dialogue began: their opening events are no longer among the recent ones. */
const snapshot = (
  recentEvents: RoomSnapshotLike["recentEvents"],
  reviews: BuildReviewDto[],
  dialogues: DialogueThreadDto[],
): RoomSnapshotLike => roomSnapshot({ lastSeq: 500, recentEvents, reviews, dialogues });

function apply(state: RoomState, event: Parameters<typeof applyRoomEvent>[1]): RoomState {
  const outcome = applyRoomEvent(state, event, () => 1000);
  if (outcome.kind !== "applied") throw new Error(outcome.kind);
  return outcome.state;
}

describe("a page opened during a long review", () => {
  it("shows the review and its dialogue from the snapshot, and follows them live", () => {
    let state = initialRoomState(snapshot([], [review("r2")], [thread]), null);
    expect(Object.values(state.reviews).at(-1)).toMatchObject({ id: "r2", round: 2, version: 1, closed: null });
    expect(state.dialogues.d1!.messages.map((entry) => entry.runId)).toEqual(["run-1"]);

    state = apply(state, stored(501, "dialogue.message", message(1, "run-2")));
    state = apply(
      state,
      stored(502, "dialogue.closed", {
        dialogueId: "d1",
        outcome: "resolved",
        rounds: 1,
        remaining: null,
        durationMs: 2400,
        inputTokens: 20,
        outputTokens: 40,
        costUsd: 0,
        costKnown: true,
      }),
    );
    state = apply(state, stored(503, "review.code", { reviewId: "r2", nodeId: "n", version: 2, language: "ts", code: "x" }));
    state = apply(
      state,
      stored(504, "review.closed", { reviewId: "r2", outcome: "approved", rounds: 2, remainingIssues: [], reason: "Approved." }),
    );
    expect(state.dialogues.d1).toMatchObject({ messages: [{ runId: "run-1" }, { runId: "run-2" }], closed: { outcome: "resolved" } });
    expect(state.reviews.r2).toMatchObject({ version: 2, closed: { outcome: "approved" } });
  });

  it("keeps earlier reviews the feed still shows, with the snapshot's latest review last", () => {
    const earlier = [
      stored(10, "review.started", { review: { id: "r1", task: "Earlier", maxRounds: 3 } }),
      stored(11, "review.closed", { reviewId: "r1", outcome: "not_approved", rounds: 3, remainingIssues: [], reason: "No consensus." }),
      // The latest review's own opening is among them too: the snapshot's account of it wins.
      stored(12, "review.started", { review: { id: "r2", task: "Task r2", maxRounds: 3 } }),
    ];
    const state = initialRoomState(snapshot(earlier, [review("r2")], []), null);
    expect(Object.keys(state.reviews)).toEqual(["r1", "r2"]);
    expect(state.reviews.r1!.closed).toMatchObject({ outcome: "not_approved" });
    expect(state.reviews.r2).toMatchObject({ round: 2, version: 1, verdict: { verdict: "changes" } });
  });
});
