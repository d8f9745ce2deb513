import { createElement } from "react";
import { describe, expect, it } from "vitest";
import { createRoomStore } from "@/components/room/room-store";
import type { PayloadOf, StoredEventType } from "@/lib/protocol";
import type { PendingCommandDto } from "@/lib/rooms/get-room-snapshot";
import { FIXTURE_TIME, agentDto, roomSnapshot, runDto, storedEvent } from "@/test/builders";
import { drawnInRoom, elementByTestId } from "@/test/room-markup";
import { AgentRoster } from "./agent-roster";

const songwriter = agentDto({ id: "sw", persona: "songwriter", name: "Songwriter" });
const painter = agentDto({ id: "sp", persona: "scene-painter", name: "Scene Painter", position: 1 });

const message = (id: string, agentId: string, senderId = "human:s1", senderName = "Ada"): PendingCommandDto => ({
  id,
  agentId,
  senderId,
  senderName,
  text: `Message ${id}`,
  createdAt: FIXTURE_TIME,
});

const stored = <T extends StoredEventType>(seq: number, type: T, payload: PayloadOf<T>) => storedEvent(type, payload, { seq });

const sent = (seq: number, pending: PendingCommandDto, runId = "run-sw") =>
  stored(seq, "command.sent", { command: { ...pending, delivery: "next_step", runId } });

/** What the card of the agent with `persona` says is waiting for it, or null when it shows no badge. */
function waitingBadge(store: ReturnType<typeof createRoomStore>, persona: string): string | null {
  const row = elementByTestId(drawnInRoom(store, createElement(AgentRoster, { onError: () => {} })), `agent-${persona}`);
  expect(row, `a card for ${persona}`).not.toBeNull();
  return row!.match(/data-testid="agent-waiting"[^>]*>([^<]*)</)?.[1] ?? null;
}

describe("the agent card's waiting badge", () => {
  it("counts the messages waiting for each agent, whoever sent them, and shows none for an agent nothing waits for", () => {
    const store = createRoomStore(roomSnapshot({ agents: [songwriter, painter] }), null);
    expect(waitingBadge(store, "songwriter")).toBeNull();
    expect(store.getState().apply(sent(2, message("m1", "sw")))).toBe("applied");
    expect(waitingBadge(store, "songwriter")).toBe("1 waiting");
    store.getState().apply(sent(3, message("m2", "sw", "human:s2", "Ben")));
    expect(waitingBadge(store, "songwriter")).toBe("2 waiting");
    expect(waitingBadge(store, "scene-painter")).toBeNull();
  });

  it("drops a message once its agent reads it or its sender withdraws it", () => {
    const store = createRoomStore(roomSnapshot({ agents: [songwriter, painter] }), null);
    store.getState().apply(sent(2, message("m1", "sw")));
    store.getState().apply(sent(3, message("m2", "sw")));
    store.getState().apply(sent(4, message("m3", "sp"), "run-sp"));
    store.getState().apply(stored(5, "command.cancelled", { commandId: "m1", agentId: "sw" }));
    expect(waitingBadge(store, "songwriter")).toBe("1 waiting");
    expect(waitingBadge(store, "scene-painter")).toBe("1 waiting");
    store.getState().apply(stored(6, "command.delivered", { commandIds: ["m2"], agentId: "sw", runId: "run-sw", step: 1 }));
    expect(waitingBadge(store, "songwriter")).toBeNull();
    expect(waitingBadge(store, "scene-painter")).toBe("1 waiting");
  });

  it("shows what still waits after a reload, from the room's snapshot, beside the agent's run", () => {
    const store = createRoomStore(
      roomSnapshot({
        agents: [songwriter, painter],
        runs: [runDto({ id: "run-sw", agentId: "sw", status: "running", steps: 1 })],
        pendingCommands: [message("m1", "sw"), message("m2", "sw", "human:s2", "Ben")],
      }),
      null,
    );
    expect(waitingBadge(store, "songwriter")).toBe("2 waiting");
    expect(waitingBadge(store, "scene-painter")).toBeNull();
  });
});
