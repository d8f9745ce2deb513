import { createElement } from "react";
import { renderToStaticMarkup } from "react-dom/server";
import { describe, expect, it } from "vitest";
import { RoomStoreScope, createRoomStore } from "@/components/room/room-store";
import { type RoomState, applyRoomEvent, initialRoomState } from "@/components/room/room-state";
import type { PayloadOf, StoredEventType } from "@/lib/protocol";
import { FIXTURE_TIME, agentDto, roomSnapshot, storedEvent } from "@/test/builders";
import { DialogueLinks, DialogueThread } from "./dialogue-thread";

const reviewer = agentDto({ id: "reviewer", persona: "reviewer", name: "Reviewer" });
const coder = agentDto({ id: "coder", persona: "coder", name: "Coder" });

/** A room whose events are applied as the page applies them; each render reads the room as it is then. */
function roomWithDialogue() {
  let state: RoomState = initialRoomState(roomSnapshot({ agents: [reviewer, coder] }), null);
  const apply = <T extends StoredEventType>(type: T, payload: PayloadOf<T>) => {
    const outcome = applyRoomEvent(state, storedEvent(type, payload, { seq: state.lastSeq + 1 }));
    if (outcome.kind !== "applied") throw new Error(outcome.kind);
    state = outcome.state;
  };
  apply("dialogue.opened", {
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
  const say = (from: typeof reviewer, to: typeof coder, round: number, runId: string) =>
    apply("dialogue.message", {
      dialogueId: "d1",
      round,
      fromAgentId: from.id,
      toAgentId: to.id,
      text: `${from.name} in round ${round}`,
      runId,
      durationMs: 1200,
      inputTokens: 10,
      outputTokens: 20,
      costUsd: 0.0234,
      costKnown: true,
    });
  const render = () => {
    // Rendered on the server, a store shows the room it was made from: a page opened now.
    const store = createRoomStore(
      roomSnapshot({ agents: [reviewer, coder], dialogues: Object.values(state.dialogues), lastSeq: state.lastSeq }),
      null,
    );
    return {
      thread: renderToStaticMarkup(createElement(RoomStoreScope, { store, children: createElement(DialogueThread, { dialogueId: "d1" }) })),
      links: renderToStaticMarkup(createElement(RoomStoreScope, { store, children: createElement(DialogueLinks) })),
    };
  };
  return { apply, say, render };
}

const heading = (markup: string) => markup.match(/<div class="dialogue__head">(.*?)<\/div>/)![1]!.replace(/<[^>]+>/g, "");

describe("a dialogue thread's heading", () => {
  it("says who talks to whom and the round under way, of the room's rounds, and on the canvas's link too", () => {
    const room = roomWithDialogue();
    expect(heading(room.render().thread)).toBe("Reviewer ↔ Coder · round 1/2");
    expect(room.render().links).toContain("round 1/2");
    // The Coder's answer is half of round 1; the Reviewer's reply completes it.
    room.say(coder, reviewer, 1, "run-1");
    expect(heading(room.render().thread)).toBe("Reviewer ↔ Coder · round 1/2");
    room.say(reviewer, coder, 1, "run-2");
    expect(heading(room.render().thread)).toBe("Reviewer ↔ Coder · round 2/2");
    expect(room.render().links).toContain("round 2/2");
  });

  it("says the rounds it took once closed, and the canvas no longer links the two", () => {
    const room = roomWithDialogue();
    room.say(coder, reviewer, 1, "run-1");
    room.say(reviewer, coder, 1, "run-2");
    room.apply("dialogue.closed", {
      dialogueId: "d1",
      outcome: "resolved",
      rounds: 1,
      remaining: null,
      durationMs: 2400,
      inputTokens: 20,
      outputTokens: 40,
      costUsd: 0.0468,
      costKnown: true,
    });
    expect(heading(room.render().thread)).toBe("Reviewer ↔ Coder · round 1/2");
    expect(room.render().links).toBe("");
  });
});
