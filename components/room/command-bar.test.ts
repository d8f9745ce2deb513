import { createElement } from "react";
import { afterEach, describe, expect, it, vi } from "vitest";
import type { PayloadOf, StoredEventType } from "@/lib/protocol";
import type { PendingCommandDto } from "@/lib/rooms/get-room-snapshot";
import { FIXTURE_TIME, agentDto, roomSnapshot, storedEvent } from "@/test/builders";
import { drawnInRoom } from "@/test/room-markup";
import { CommandBar, withdrawCommand } from "./command-bar";
import { createRoomStore } from "./room-store";

const agents = [
  agentDto({ id: "sw", persona: "songwriter", name: "Songwriter" }),
  agentDto({ id: "sp", persona: "scene-painter", name: "Scene Painter" }),
];
const ada = { id: "s1", displayName: "Ada" };

const message = (id: string, agentId: string, text: string, senderId = "human:s1", senderName = "Ada"): PendingCommandDto => ({
  id,
  agentId,
  senderId,
  senderName,
  text,
  createdAt: FIXTURE_TIME,
});

const stored = <T extends StoredEventType>(seq: number, type: T, payload: PayloadOf<T>) => storedEvent(type, payload, { seq });

/** The waiting messages the bar lists, each as "agent: text", and whether each offers to withdraw it. */
function listed(store: ReturnType<typeof createRoomStore>): { text: string; withdraw: boolean }[] {
  const markup = drawnInRoom(store, createElement(CommandBar));
  return [...markup.matchAll(/<li data-testid="pending-command">(.*?)<\/li>/g)].map(([, item]) => ({
    text: item!
      .replace(/<button[^>]*>.*?<\/button>/g, "")
      .replace(/<[^>]+>/g, "")
      .replace(/^waiting /, "")
      .trim(),
    withdraw: item!.includes('data-testid="withdraw-command"'),
  }));
}

describe("the command bar's waiting messages", () => {
  const waiting = [
    message("m1", "sw", "try a sea shanty"),
    message("m2", "sw", "Ben’s idea", "human:s2", "Ben"),
    message("m3", "sp", "paint the harbour"),
  ];

  it("lists the seat's own waiting messages, each with a way to withdraw it, and nobody else's", () => {
    const store = createRoomStore(roomSnapshot({ agents, pendingCommands: waiting }), ada);
    expect(listed(store)).toEqual([
      { text: "Songwriter: “try a sea shanty”", withdraw: true },
      { text: "Scene Painter: “paint the harbour”", withdraw: true },
    ]);
    // Ben sees his own.
    expect(listed(createRoomStore(roomSnapshot({ agents, pendingCommands: waiting }), { id: "s2", displayName: "Ben" }))).toEqual([
      { text: "Songwriter: “Ben’s idea”", withdraw: true },
    ]);
  });

  it("shows a spectator no bar at all, and so nothing to withdraw", () => {
    expect(drawnInRoom(createRoomStore(roomSnapshot({ agents, pendingCommands: waiting }), null), createElement(CommandBar))).toBe("");
  });

  it("takes a message off the list when it is withdrawn or delivered, and lists one sent since", () => {
    const store = createRoomStore(roomSnapshot({ agents, pendingCommands: waiting }), ada);
    store.getState().apply(stored(2, "command.cancelled", { commandId: "m1", agentId: "sw" }));
    expect(listed(store).map((item) => item.text)).toEqual(["Scene Painter: “paint the harbour”"]);
    store.getState().apply(stored(3, "command.delivered", { commandIds: ["m3"], agentId: "sp", runId: "run", step: 0 }));
    expect(listed(store)).toEqual([]);
    store
      .getState()
      .apply(stored(4, "command.sent", { command: { ...message("m4", "sp", "more gulls"), delivery: "new_run", runId: "run-2" } }));
    expect(listed(store)).toEqual([{ text: "Scene Painter: “more gulls”", withdraw: true }]);
  });
});

describe("withdrawing a waiting message", () => {
  afterEach(() => {
    vi.unstubAllGlobals();
  });

  it("asks the API to delete that message of that room", async () => {
    const fetch = vi
      .fn()
      .mockResolvedValue(new Response(JSON.stringify({ commandId: "m1", cancelled: true, cancelledRunId: null }), { status: 200 }));
    vi.stubGlobal("fetch", fetch);
    expect(await withdrawCommand("room-1", "m1")).toBeNull();
    expect(fetch).toHaveBeenCalledOnce();
    expect(fetch.mock.calls[0]![0]).toBe("/api/rooms/room-1/commands/m1");
    expect(fetch.mock.calls[0]![1]).toMatchObject({ method: "DELETE" });
  });

  it("gives the server's reason when it refuses: the message reached its agent first", async () => {
    const reason = "This message has already reached its agent; it can no longer be withdrawn.";
    vi.stubGlobal(
      "fetch",
      vi.fn().mockResolvedValue(new Response(JSON.stringify({ error: { code: "conflict", message: reason } }), { status: 409 })),
    );
    expect(await withdrawCommand("room-1", "m1")).toBe(reason);
  });

  it("says so when the server cannot be reached", async () => {
    vi.stubGlobal("fetch", vi.fn().mockRejectedValue(new TypeError("Failed to fetch")));
    expect(await withdrawCommand("room-1", "m1")).toBe("Failed to fetch");
  });
});
