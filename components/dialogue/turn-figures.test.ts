import { describe, expect, it } from "vitest";
import { type RoomState, applyRoomEvent, initialRoomState } from "@/components/room/room-state";
import type { PayloadOf, StoredEventType } from "@/lib/protocol";
import { FIXTURE_TIME, roomSnapshot, storedEvent } from "@/test/builders";
import { turnFigures } from "./turn-figures";

function apply<T extends StoredEventType>(state: RoomState, seq: number, type: T, payload: PayloadOf<T>): RoomState {
  const outcome = applyRoomEvent(state, storedEvent(type, payload, { seq }), () => 1000);
  if (outcome.kind !== "applied") throw new Error(outcome.kind);
  return outcome.state;
}

const message = (round: number, runId: string, spent: { costUsd: number; costKnown: boolean }) => ({
  dialogueId: "d1",
  round,
  fromAgentId: round === 1 ? "coder" : "reviewer",
  toAgentId: round === 1 ? "reviewer" : "coder",
  text: `Message ${round}`,
  runId,
  durationMs: 1200,
  inputTokens: 10,
  outputTokens: 20,
  ...spent,
});

describe("a dialogue thread's figures", () => {
  it("say 'cost unknown' for a message from a model without a known price, never $0.0000, and for the dialogue it is part of", () => {
    let state = initialRoomState(roomSnapshot(), null);
    state = apply(state, 2, "dialogue.opened", {
      dialogue: {
        id: "d1",
        askerAgentId: "reviewer",
        addresseeAgentId: "coder",
        topic: "Empty input?",
        reason: "open question",
        maxRounds: 2,
        reviewId: null,
        openedAt: FIXTURE_TIME,
      },
    });
    // The Coder's model has no price (it reports 0); the Reviewer's has one.
    state = apply(state, 3, "dialogue.message", message(1, "run-1", { costUsd: 0, costKnown: false }));
    state = apply(state, 4, "dialogue.message", message(2, "run-2", { costUsd: 0.0234, costKnown: true }));
    const [unpriced, priced] = state.dialogues.d1!.messages.map(turnFigures);
    expect(unpriced).toBe("1.2 s · cost unknown");
    expect(priced).toBe("1.2 s · $0.0234");

    state = apply(state, 5, "dialogue.closed", {
      dialogueId: "d1",
      outcome: "resolved",
      rounds: 1,
      remaining: null,
      durationMs: 2400,
      inputTokens: 20,
      outputTokens: 40,
      costUsd: 0.0234,
      costKnown: false,
    });
    expect(turnFigures(state.dialogues.d1!.closed!)).toBe("2.4 s · $0.0234 + cost unknown");
    expect([unpriced, turnFigures(state.dialogues.d1!.closed!)].join(" ")).not.toContain("$0.0000");
  });
});
