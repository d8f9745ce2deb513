import { describe, expect, it } from "vitest";
import type { PayloadOf, RoomEvent, StoredEventType } from "@/lib/protocol";
import { FIXTURE_TIME, agentDto, broadcastDto, broadcastResponseDto, edgeDto, nodeDto, runDto, storedEvent } from "@/test/builders";
import { DEFAULT_ROOM_SETTINGS } from "@/lib/rooms/room-settings";
import {
  FEED_LIMIT,
  type RoomSnapshotLike,
  type RoomState,
  applyRoomEvent,
  initialRoomState,
  nextTurn,
  nextTurnLabel,
  skipUnreadableEvent,
  uncountedSeat,
} from "./room-state";
import { createRoomStore } from "./room-store";
import { clockOffset } from "./clock-offset";
import { secondsLeft } from "@/components/broadcast/countdown";

const node = (id: string, text = "Rain") => nodeDto({ id, text });

const stored = <T extends StoredEventType>(seq: number, type: T, payload: PayloadOf<T>) => storedEvent(type, payload, { seq });

const snapshot = (): RoomSnapshotLike => ({
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
});

function start(): RoomState {
  return initialRoomState(snapshot(), null);
}

function fold(state: RoomState, events: RoomEvent[]) {
  return events.reduce((current, event) => {
    const outcome = applyRoomEvent(current, event, () => 1000);
    if (outcome.kind !== "applied") throw new Error(`${event.type} was ${outcome.kind}`);
    return outcome.state;
  }, state);
}

describe("applyRoomEvent", () => {
  it("applies canvas events in order", () => {
    const state = fold(start(), [
      stored(2, "node.created", { node: node("a") }),
      stored(3, "node.created", { node: node("b") }),
      stored(4, "node.updated", { nodeId: "a", changes: { text: "Rain taps", x: 5 }, version: 2, updatedAt: FIXTURE_TIME }),
      stored(5, "edge.created", { edge: edgeDto({ id: "e", sourceId: "a", targetId: "b", label: "echoes" }) }),
      stored(6, "edge.updated", { edgeId: "e", label: "answers" }),
      stored(7, "node.deleted", { nodeId: "b", edgeIds: ["e"] }),
    ]);
    expect(state.lastSeq).toBe(7);
    expect(Object.keys(state.nodes)).toEqual(["a"]);
    expect(state.nodes.a).toMatchObject({ text: "Rain taps", x: 5, version: 2 });
    expect(state.edges).toEqual({});
    expect(state.feed.map((event) => event.seq)).toEqual([2, 3, 4, 5, 6, 7]);
  });

  it("adds an outside agent to the roster when it joins, once, and marks it working when it calls", () => {
    const outside = agentDto({ id: "claude", name: "Claude Code", persona: "external-claudecode", model: "external:mcp" });
    const joined = { agent: outside, protocol: "mcp" as const, tokenId: "t1", expiresAt: FIXTURE_TIME };
    const state = fold(start(), [stored(2, "agent.joined", joined), stored(3, "agent.joined", { ...joined, tokenId: "t2" })]);
    expect(state.agents.filter((agent) => agent.id === "claude")).toEqual([outside]);
    const active = fold(state, [{ type: "agent.active", room_id: state.room.id, payload: { agentId: "claude", at: FIXTURE_TIME } }]);
    expect(active.externalActiveAt).toEqual({ claude: 1000 });
  });

  it("keeps each A2A teammate's remote task state, the last one after its call, also from a snapshot's events", () => {
    const task = (seq: number, state: PayloadOf<"agent.remote_task">["state"]) =>
      stored(seq, "agent.remote_task", { agentId: "remote", runId: "run1", taskId: "t1", state });
    const working = fold(start(), [task(2, "submitted"), task(3, "working")]);
    expect(working.remoteTasks).toEqual({ remote: { taskId: "t1", state: "working", runId: "run1" } });
    expect(fold(working, [task(4, "completed")]).remoteTasks.remote?.state).toBe("completed");
    // A page opened later reads the last state from the snapshot's recent events.
    const reloaded = initialRoomState({ ...snapshot(), recentEvents: [task(2, "working"), task(3, "failed")], lastSeq: 3 }, null);
    expect(reloaded.remoteTasks).toEqual({ remote: { taskId: "t1", state: "failed", runId: "run1" } });
    expect(start().remoteTasks).toEqual({});
  });

  it("moves every note a tidy laid out, and only notes it still has", () => {
    const state = fold(start(), [
      stored(2, "node.created", { node: node("a") }),
      stored(3, "node.created", { node: node("b") }),
      stored(4, "canvas.tidied", {
        positions: [
          { nodeId: "a", x: 400, y: 20, version: 2 },
          { nodeId: "gone", x: 1, y: 1, version: 2 },
        ],
        updatedAt: FIXTURE_TIME,
      }),
    ]);
    expect(state.nodes.a).toMatchObject({ x: 400, y: 20, version: 2 });
    expect(state.nodes.b).toEqual(node("b"));
    expect(Object.keys(state.nodes)).toEqual(["a", "b"]);
  });

  it("ignores an event it has already applied and reports a gap", () => {
    const state = fold(start(), [stored(2, "node.created", { node: node("a") })]);
    expect(applyRoomEvent(state, stored(2, "node.created", { node: node("a", "again") })).kind).toBe("duplicate");
    expect(applyRoomEvent(state, stored(1, "seat.taken", { seatId: "s", displayName: "Ada" })).kind).toBe("duplicate");
    expect(applyRoomEvent(state, stored(4, "seat.taken", { seatId: "s", displayName: "Ada" })).kind).toBe("gap");
  });

  it("takes presence, typing and deletion from ephemeral signals without moving the sequence", () => {
    const state = fold(start(), [
      { type: "presence", room_id: "r", payload: { watching: 3, participants: 1 } },
      { type: "agent.typing", room_id: "r", payload: { runId: "run", agentId: "a", step: 0, delta: "Rain " } },
      { type: "agent.typing", room_id: "r", payload: { runId: "run", agentId: "a", step: 0, delta: "taps" } },
      { type: "room.deleted", room_id: "r", payload: {} },
    ]);
    expect(state).toMatchObject({ watching: 3, participants: 1, deleted: true, lastSeq: 1 });
    expect(state.typing.a).toEqual({ runId: "run", step: 0, text: "Rain taps", at: 1000 });
  });

  it("tracks runs and broadcasts, and clears typing when a step lands", () => {
    const run = runDto({ id: "run", agentId: "a" });
    const step = {
      runId: "run",
      agentId: "a",
      step: 0,
      text: "Hi",
      toolCalls: [],
      toolResults: [],
      durationMs: 5,
      inputTokens: 10,
      outputTokens: 4,
      costUsd: 0.5,
    };
    const state = fold(start(), [
      stored(2, "run.queued", { run }),
      stored(3, "run.started", { runId: "run", agentId: "a", attempt: 1, startedAt: FIXTURE_TIME }),
      { type: "agent.typing", room_id: "r", payload: { runId: "run", agentId: "a", step: 0, delta: "Hi" } },
      stored(4, "run.step", step),
    ]);
    expect(state.runs.run).toMatchObject({ status: "running", steps: 1, inputTokens: 10, outputTokens: 4, costUsd: 0.5 });
    expect(state.typing.a).toBeUndefined();
    const broadcast = broadcastDto({ id: "b", agentId: "a", runId: "run" });
    const after = fold(state, [
      stored(5, "broadcast.asked", { broadcast }),
      stored(6, "broadcast.opened", { broadcastId: "b", deadlineAt: FIXTURE_TIME, openedAt: FIXTURE_TIME }),
      stored(7, "broadcast.response", { response: broadcastResponseDto({ id: "x", broadcastId: "b", content: "Yes" }) }),
      stored(8, "broadcast.closed", { broadcastId: "b", status: "complete", responses: 1, durationMs: 10, closedAt: FIXTURE_TIME }),
    ]);
    expect(after.broadcasts.b!.status).toBe("complete");
    expect(after.answers.b!.map((answer) => answer.content)).toEqual(["Yes"]);
  });

  it("keeps the earlier answer a question was given instead of asking the room", () => {
    const reusedAnswer = {
      broadcastId: "earlier",
      question: "Rain or streetlights?",
      askedBy: "Songwriter",
      answeredBy: "Tess",
      answer: "Rain",
      answeredAt: FIXTURE_TIME,
    };
    const state = fold(start(), [
      stored(2, "broadcast.asked", { broadcast: broadcastDto({ id: "b", status: "waiting_turn" }) }),
      stored(3, "broadcast.closed", {
        broadcastId: "b",
        status: "reused",
        responses: 1,
        durationMs: 0,
        closedAt: FIXTURE_TIME,
        reusedAnswer,
      }),
    ]);
    expect(state.broadcasts.b).toMatchObject({ status: "reused", reusedAnswer });
  });

  it("steps over an event the page could not read, without touching what it shows", () => {
    const state = fold(start(), [stored(2, "node.created", { node: node("a") })]);
    const skipped = skipUnreadableEvent(state, 3);
    if (skipped.kind !== "applied") throw new Error(`skip was ${skipped.kind}`);
    expect(skipped.state).toMatchObject({ lastSeq: 3, unreadableEvents: 1 });
    expect(skipped.state.nodes).toBe(state.nodes);
    expect(skipped.state.feed).toBe(state.feed);
    expect(skipUnreadableEvent(skipped.state, 3).kind).toBe("duplicate");
    expect(skipUnreadableEvent(skipped.state, 5).kind).toBe("gap");
    expect(applyRoomEvent(skipped.state, stored(4, "seat.taken", { seatId: "s", displayName: "Ada" })).kind).toBe("applied");
  });

  it("keeps the feed to its limit", () => {
    let state = start();
    for (let seq = 2; seq < FEED_LIMIT + 50; seq++) state = fold(state, [stored(seq, "seat.taken", { seatId: "s", displayName: "A" })]);
    expect(state.feed).toHaveLength(FEED_LIMIT);
    expect(state.feed.at(-1)!.seq).toBe(FEED_LIMIT + 49);
  });
});

describe("a seat taken while the stream is open", () => {
  const opened = (connectionId: string, seatId: string | null): RoomEvent => ({
    type: "stream.opened",
    room_id: "r",
    payload: { connectionId, seatId },
  });
  const ada = { id: "seat-ada", displayName: "Ada" };

  it("is reported as missing from the stream's count until the server counts it", () => {
    const store = createRoomStore(snapshot(), null);
    store.getState().setConnection("live");
    expect(store.getState().apply(opened("c1", null))).toBe("applied");
    expect(store.getState().lastSeq).toBe(1);
    expect(uncountedSeat(store.getState())).toBeNull();

    store.getState().setSeat(ada);
    expect(uncountedSeat(store.getState())).toEqual({ connectionId: "c1", seatId: ada.id });
    store.getState().seatCounted("c1", ada.id);
    expect(uncountedSeat(store.getState())).toBeNull();
  });

  it("is asked about for the stream the page has now, never for one that closed", () => {
    const store = createRoomStore(snapshot(), null);
    store.getState().apply(opened("c1", null));
    store.getState().setConnection("reconnecting");
    store.getState().setSeat(ada);
    // Between streams there is nothing to count the seat on.
    expect(uncountedSeat(store.getState())).toBeNull();

    // The next stream was requested before the seat's cookie was set.
    store.getState().setConnection("live");
    store.getState().apply(opened("c2", null));
    expect(uncountedSeat(store.getState())).toEqual({ connectionId: "c2", seatId: ada.id });
    // A late answer about the closed stream changes nothing.
    store.getState().seatCounted("c1", ada.id);
    expect(uncountedSeat(store.getState())).toEqual({ connectionId: "c2", seatId: ada.id });

    // A stream opened with the cookie counts the seat already.
    store.getState().setConnection("reconnecting");
    store.getState().setConnection("live");
    store.getState().apply(opened("c3", ada.id));
    expect(uncountedSeat(store.getState())).toBeNull();
  });
});

describe("counting down by the server's clock on a device whose clock is off", () => {
  const TEN_MINUTES = 10 * 60_000;
  const serverNow = Date.parse("2026-03-01T12:00:00.000Z");
  /** This device's clock: ten minutes behind the server's. */
  const deviceNow = serverNow - TEN_MINUTES;
  const opened = (serverTime?: string): RoomEvent => ({
    type: "stream.opened",
    room_id: "r",
    payload: { connectionId: "c1", seatId: null, ...(serverTime ? { serverTime } : {}) },
  });
  const apply = (state: RoomState, event: RoomEvent, at: number) => {
    const outcome = applyRoomEvent(state, event, () => at);
    if (outcome.kind !== "applied") throw new Error(outcome.kind);
    return outcome.state;
  };

  it("reads how far the server's clock is ahead or behind, and nothing from a time it cannot read", () => {
    expect(clockOffset(new Date(serverNow).toISOString(), deviceNow)).toBe(TEN_MINUTES);
    expect(clockOffset(new Date(serverNow).toISOString(), serverNow + 3_000)).toBe(-3_000);
    // Within a second, the difference is the reading's own trip more than the clocks': none is taken.
    expect(clockOffset(new Date(serverNow).toISOString(), serverNow + 400)).toBe(0);
    expect(clockOffset("not a time", deviceNow)).toBe(0);
  });

  it("learns the offset when the stream opens, keeps the last one when a stream does not say, and keeps the stream's own fields apart", () => {
    let state = initialRoomState(snapshot(), null);
    expect(state.clockOffsetMs).toBe(0);
    state = apply(state, opened(new Date(serverNow).toISOString()), deviceNow);
    expect(state.clockOffsetMs).toBe(TEN_MINUTES);
    expect(state.stream).toEqual({ connectionId: "c1", seatId: null });
    state = apply(state, opened(), deviceNow + 5_000);
    expect(state.clockOffsetMs).toBe(TEN_MINUTES);
    // A reconnect after the device's clock was put right learns the new offset.
    state = apply(state, opened(new Date(serverNow + 60_000).toISOString()), serverNow + 60_000);
    expect(state.clockOffsetMs).toBe(0);
  });

  it("shows a question's full time and the next turn's true seconds, not the device's", () => {
    const state = apply(initialRoomState(snapshot(), null), opened(new Date(serverNow).toISOString()), deviceNow);
    const deadline = new Date(serverNow + 120_000).toISOString();
    // Read by the device's clock, a two-minute question would show twelve minutes left.
    expect(secondsLeft(deadline, deviceNow)).toBe(720);
    expect(secondsLeft(deadline, deviceNow + state.clockOffsetMs)).toBe(120);
    expect(secondsLeft(deadline, deviceNow + state.clockOffsetMs + 121_000)).toBe(0);
    expect(nextTurnLabel(serverNow + 12_000, deviceNow + state.clockOffsetMs)).toBe("in 12 s");
  });

  it("never shows more than a question's whole time, though the reading of the server's clock came late", () => {
    const openedAt = new Date(serverNow).toISOString();
    const deadline = new Date(serverNow + 60_000).toISOString();
    // Reckoned 300 ms behind the server, the first moment would read 61 s of a 60 s question.
    expect(secondsLeft(deadline, serverNow - 300)).toBe(61);
    expect(secondsLeft(deadline, serverNow - 300, openedAt)).toBe(60);
    expect(secondsLeft(deadline, serverNow + 1_500, openedAt)).toBe(59);
  });
});

describe("nextTurn", () => {
  const agents = [
    agentDto({ id: "iw", persona: "idea-weaver", name: "Idea Weaver", position: 0 }),
    agentDto({ id: "sw", persona: "songwriter", name: "Songwriter", position: 2 }),
    agentDto({ id: "st", persona: "storyteller", name: "Storyteller", position: 3 }),
  ];
  const turnOrder = ["songwriter", "idea-weaver", "storyteller"];
  const at = (seconds: number) => new Date(Date.parse(FIXTURE_TIME) + seconds * 1000).toISOString();

  it("is nothing while the room's scheduler is off", () => {
    expect(nextTurn({ settings: DEFAULT_ROOM_SETTINGS, agents, runs: {}, turnOrder, lastRunAt: {} })).toBeNull();
  });

  it("names whoever waited longest since their last run, one interval after the last scheduled run", () => {
    const settings = { ...DEFAULT_ROOM_SETTINGS, scheduler_enabled: true, scheduler_interval_seconds: 45 };
    expect(nextTurn({ settings, agents, runs: {}, turnOrder, lastRunAt: {} })).toEqual({ agent: agents[1], at: null });
    const runs = {
      a: runDto({ id: "a", agentId: "sw", trigger: "scheduler", createdAt: at(0) }),
      b: runDto({ id: "b", agentId: "iw", trigger: "scheduler", createdAt: at(45) }),
      c: runDto({ id: "c", agentId: "st", trigger: "request", createdAt: at(50) }),
    };
    const lastRunAt = { sw: Date.parse(at(0)), iw: Date.parse(at(45)), st: Date.parse(at(50)) };
    expect(nextTurn({ settings, agents, runs, turnOrder, lastRunAt })).toEqual({ agent: agents[1], at: Date.parse(at(90)) });
  });

  it("ranks by every agent's last run over the room's history, not only the runs the page holds", () => {
    const settings = { ...DEFAULT_ROOM_SETTINGS, scheduler_enabled: true };
    // The page holds only the Songwriter's recent run; the Idea Weaver ran later, long ago by the page's reckoning.
    const opened = initialRoomState(
      {
        ...snapshot(),
        settings,
        agents,
        turnOrder,
        runs: [runDto({ id: "a", agentId: "sw", trigger: "scheduler", createdAt: at(100) })],
        lastRunAt: { sw: at(100), iw: at(10), st: at(20) },
      },
      null,
    );
    expect(nextTurn(opened)!.agent.id).toBe("iw");
    // A run queued live moves its agent to the back.
    const queued = fold(opened, [stored(2, "run.queued", { run: runDto({ id: "b", agentId: "iw", createdAt: at(130) }) })]);
    expect(queued.lastRunAt.iw).toBe(Date.parse(at(130)));
    expect(nextTurn(queued)!.agent.id).toBe("st");
  });

  it("breaks a tie by the turn order, never by chance", () => {
    const settings = { ...DEFAULT_ROOM_SETTINGS, scheduler_enabled: true };
    const same = Date.parse(at(5));
    expect(nextTurn({ settings, agents, runs: {}, turnOrder, lastRunAt: { sw: same, iw: same, st: same } })!.agent.id).toBe("sw");
    expect(nextTurn({ settings, agents, runs: {}, turnOrder, lastRunAt: { sw: Date.parse(at(9)), iw: same, st: same } })!.agent.id).toBe(
      "iw",
    );
  });

  it("counts from the scheduler's last turn as the server reports it, also a turn that found the room busy", () => {
    const settings = { ...DEFAULT_ROOM_SETTINGS, scheduler_enabled: true, scheduler_interval_seconds: 45 };
    const turn = (seconds: number): RoomEvent => ({ type: "scheduler.turn", room_id: "r", payload: { lastScheduledAt: at(seconds) } });
    const scheduled = runDto({ id: "a", agentId: "sw", trigger: "scheduler", createdAt: at(0) });
    const base: RoomState = { ...start(), settings, agents, turnOrder, runs: { a: scheduled }, lastRunAt: { sw: Date.parse(at(0)) } };
    // From the runs alone, the turn at 45 s looks overdue: "any moment", for a whole interval.
    expect(nextTurnLabel(nextTurn(base)!.at, Date.parse(at(78)))).toBe("any moment");
    // The scheduler took its turn at 45 s, found the room busy and started nobody: the next is at 90 s.
    const told = fold(base, [turn(45)]);
    expect(told.lastScheduledAt).toBe(Date.parse(at(45)));
    expect(nextTurn(told)).toEqual({ agent: agents[0], at: Date.parse(at(90)) });
    expect(nextTurnLabel(nextTurn(told)!.at, Date.parse(at(78)))).toBe("in 12 s");
    expect(nextTurnLabel(nextTurn(told)!.at, Date.parse(at(89.2)))).toBe("in 1 s");
    expect(nextTurnLabel(nextTurn(told)!.at, Date.parse(at(90)))).toBe("any moment");
    // A late copy of an older turn (a stream's opening frame) does not move the clock back.
    expect(fold(told, [turn(30)]).lastScheduledAt).toBe(Date.parse(at(45)));
    // A page opened after the turn has it from the snapshot.
    const opened = initialRoomState(
      { ...snapshot(), settings, agents, turnOrder, runs: [scheduled], lastScheduledAt: at(45), lastRunAt: { sw: at(0) } },
      null,
    );
    expect(nextTurnLabel(nextTurn(opened)!.at, Date.parse(at(78)))).toBe("in 12 s");
    expect(nextTurnLabel(null, Date.parse(at(0)))).toBe("soon");
  });
});

describe("what the room may still spend today", () => {
  const budget = { tokensLeft: 1000, tokenLimit: 5000, costLeftUsd: 0.5, costLimitUsd: 5, resetsAt: "2026-01-02T00:00:00.000Z" };
  const withBudget = (value: RoomSnapshotLike["budget"]) => initialRoomState({ ...snapshot(), budget: value }, null);
  const step = (seq: number, inputTokens: number, outputTokens: number, costUsd: number) =>
    stored(seq, "run.step", {
      runId: "run",
      agentId: "a",
      step: 0,
      text: "",
      toolCalls: [],
      toolResults: [],
      durationMs: 10,
      inputTokens,
      outputTokens,
      costUsd,
    });
  const limit = (seq: number, name: PayloadOf<"limit.reached">["limit"]) =>
    stored(seq, "limit.reached", { limit: name, runId: "run", agentId: "a", message: "stopped", used: 1, allowed: 1, resetsAt: null });

  it("counts down as steps report their usage, never below nothing", () => {
    expect(fold(withBudget(budget), [step(2, 300, 100, 0.2)]).budget).toMatchObject({ tokensLeft: 600, costLeftUsd: 0.3 });
    expect(fold(withBudget(budget), [step(2, 300, 100, 0.2), step(3, 900, 0, 0.9)]).budget).toMatchObject({
      tokensLeft: 0,
      costLeftUsd: 0,
    });
  });

  it("is spent once a daily budget stops the agents, and untouched by other limits", () => {
    expect(fold(withBudget(budget), [limit(2, "repeated_tool_call")]).budget).toEqual(budget);
    expect(fold(withBudget(budget), [limit(2, "instance_daily_cost")]).budget).toMatchObject({ costLeftUsd: 0, tokensLeft: 1000 });
  });

  it("keeps what is left when an agent was stopped short of a budget it would have gone past", () => {
    const ahead = stored(2, "limit.reached", {
      limit: "room_daily_tokens",
      runId: "run",
      agentId: "a",
      message: "would go past",
      used: 4000,
      allowed: 5000,
      expected: 1500,
      resetsAt: null,
    });
    expect(fold(withBudget(budget), [ahead]).budget).toEqual(budget);
  });

  it("is not shown when no budget applies", () => {
    expect(fold(withBudget(null), [step(2, 10, 10, 0)]).budget).toBeNull();
  });
});
