import { describe, expect, it } from "vitest";
import type { PayloadOf, StoredEventType } from "@/lib/protocol";
import { DEFAULT_ROOM_SETTINGS } from "@/lib/rooms/room-settings";
import { FIXTURE_TIME, storedEvent } from "@/test/builders";
import { type RoomSnapshotLike, type RoomState, applyRoomEvent, initialRoomState } from "./room-state";

const stored = <T extends StoredEventType>(seq: number, type: T, payload: PayloadOf<T>) => storedEvent(type, payload, { seq });

function roomWithBudget(budget: RoomSnapshotLike["budget"]): RoomState {
  return initialRoomState(
    {
      room: { id: "r", title: "T", template: "creative-canvas", lastSeq: 1, createdAt: FIXTURE_TIME, lastActivityAt: FIXTURE_TIME },
      settings: DEFAULT_ROOM_SETTINGS,
      agents: [],
      nodes: [],
      edges: [],
      runs: [],
      board: [],
      broadcasts: [],
      broadcastResponses: [],
      findings: [],
      pendingCommands: [],
      turnOrder: [],
      lastScheduledAt: null,
      lastRunAt: {},
      recentEvents: [],
      brainstorm: null,
      lastSeq: 1,
      budget,
    },
    null,
  );
}

const step = (seq: number, inputTokens: number, outputTokens: number, costUsd: number) =>
  stored(seq, "run.step", { runId: "run", agentId: "a", step: 0, text: "", toolCalls: [], toolResults: [], durationMs: 10, inputTokens, outputTokens, costUsd });

function apply(state: RoomState, event: Parameters<typeof applyRoomEvent>[1]): RoomState {
  const outcome = applyRoomEvent(state, event);
  if (outcome.kind !== "applied") throw new Error(`not applied: ${outcome.kind}`);
  return outcome.state;
}

describe("what the room may still spend today", () => {
  const budget = { tokensLeft: 1000, tokenLimit: 5000, costLeftUsd: 0.5, costLimitUsd: 5, resetsAt: "2026-01-02T00:00:00.000Z" };

  it("counts down as steps report their usage, never below nothing", () => {
    let state = roomWithBudget(budget);
    state = apply(state, step(2, 300, 100, 0.2));
    expect(state.budget).toMatchObject({ tokensLeft: 600, costLeftUsd: 0.3 });
    state = apply(state, step(3, 900, 0, 0.9));
    expect(state.budget).toMatchObject({ tokensLeft: 0, costLeftUsd: 0 });
  });

  it("is spent once a daily budget stops the agents, and untouched by other limits", () => {
    const limit = (seq: number, name: PayloadOf<"limit.reached">["limit"]) =>
      stored(seq, "limit.reached", { limit: name, runId: "run", agentId: "a", message: "stopped", used: 1, allowed: 1, resetsAt: null });
    let state = roomWithBudget(budget);
    state = apply(state, limit(2, "repeated_tool_call"));
    expect(state.budget).toEqual(budget);
    state = apply(state, limit(3, "instance_daily_cost"));
    expect(state.budget).toMatchObject({ costLeftUsd: 0, tokensLeft: 1000 });
  });

  it("is not shown when no budget applies", () => {
    expect(apply(roomWithBudget(null), step(2, 10, 10, 0)).budget).toBeNull();
  });
});
