import { describe, expect, it } from "vitest";
import { ephemeralEventSchema, isStoredEvent, parseRoomEvent, parseStoredEvents, storedEventSchema, storedEventTypes } from "./events";

const envelope = {
  id: "e1",
  room_id: "r1",
  seq: 3,
  correlation_id: "room_0123456789ab_1763807400123_9c1e4f7a",
  agent: "human:s1",
  agent_name: "Ada",
  target_agent: null,
  timestamp: "2026-11-22T10:30:00.000Z",
  status: "success",
  next_steps: [],
  error_details: null,
};

const node = {
  id: "n1",
  kind: "note",
  text: "Rain",
  x: 1,
  y: 2,
  width: null,
  height: null,
  color: null,
  authorKind: "human",
  authorId: "human:s1",
  authorName: "Ada",
  version: 1,
  createdAt: "2026-11-22T10:30:00.000Z",
  updatedAt: "2026-11-22T10:30:00.000Z",
};

describe("the event catalogue", () => {
  it("accepts a well-formed stored event of each kind it knows", () => {
    const samples = [
      { type: "node.created", payload: { node } },
      { type: "node.updated", payload: { nodeId: "n1", changes: { text: "Rain taps" }, version: 2, updatedAt: envelope.timestamp } },
      { type: "node.deleted", payload: { nodeId: "n1", edgeIds: ["e1"] } },
      { type: "edge.deleted", payload: { edgeId: "e1" } },
      { type: "seat.taken", payload: { seatId: "s1", displayName: "Ada" } },
      { type: "board.request_updated", payload: { entryId: "b1", status: "answered", runId: null } },
    ];
    for (const sample of samples) expect(storedEventSchema.safeParse({ ...envelope, ...sample }).success, sample.type).toBe(true);
    expect(storedEventTypes).toEqual(expect.arrayContaining(["run.step", "broadcast.asked", "board.posted"]));
  });

  it("reads a step with what its model was given in brief, and a step recorded before that was kept", () => {
    const step = {
      runId: "run1",
      agentId: "a1",
      step: 0,
      text: "A line.",
      toolCalls: [],
      toolResults: [],
      durationMs: 10,
      inputTokens: 5,
      outputTokens: 2,
      costUsd: 0,
    };
    const prompt = { messageCount: 2, characters: 40, tokens: 10, added: { opening: true, toolResults: 0, messages: 0, notes: 0 } };
    const parse = (payload: unknown) => storedEventSchema.safeParse({ ...envelope, type: "run.step", payload });
    expect(parse(step).success).toBe(true);
    const withPrompt = parse({ ...step, prompt });
    expect(withPrompt.success && withPrompt.data.payload).toMatchObject({ prompt });
    expect(parse({ ...step, prompt: { ...prompt, added: { opening: "yes" } } }).success).toBe(false);
  });

  it("rejects unknown types, bad envelopes and payloads that do not match their type", () => {
    const valid = { ...envelope, type: "edge.deleted", payload: { edgeId: "e1" } };
    const broken = [
      { ...valid, type: "edge.exploded" },
      { ...valid, status: "maybe" },
      { ...valid, timestamp: "yesterday" },
      { ...valid, seq: 0 },
      { ...valid, correlation_id: "" },
      { ...valid, payload: { edgeId: 7 } },
      { ...valid, payload: { node } },
      { ...valid, error_details: { error_type: "x" } },
    ];
    for (const event of broken) expect(storedEventSchema.safeParse(event).success, JSON.stringify(event).slice(0, 80)).toBe(false);
    const { agent: _agent, ...noSender } = valid;
    expect(storedEventSchema.safeParse(noSender).success).toBe(false);
  });

  it("keeps ephemeral signals apart: no sequence number", () => {
    const presence = { type: "presence", room_id: "r1", payload: { watching: 2, participants: 1 } };
    expect(ephemeralEventSchema.safeParse(presence).success).toBe(true);
    expect(isStoredEvent(ephemeralEventSchema.parse(presence))).toBe(false);
    expect(ephemeralEventSchema.safeParse({ ...presence, payload: { watching: -1, participants: 0 } }).success).toBe(false);
    const typing = { type: "agent.typing", room_id: "r1", payload: { runId: "run", agentId: "a", step: 0, delta: "Ra" } };
    expect(ephemeralEventSchema.safeParse(typing).success).toBe(true);
  });
});

describe("parseRoomEvent", () => {
  it("reads stored and live-only events with the catalogue's schemas", () => {
    const stored = parseRoomEvent(JSON.stringify({ ...envelope, type: "node.created", payload: { node } }));
    expect(stored).toMatchObject({ ok: true, event: { type: "node.created", seq: 3 } });
    const live = parseRoomEvent(JSON.stringify({ type: "presence", room_id: "r1", payload: { watching: 2, participants: 1 } }));
    expect(live).toMatchObject({ ok: true, event: { type: "presence" } });
  });

  it("refuses a damaged stored event, keeping its number so the page can step over it", () => {
    const damaged = parseRoomEvent(JSON.stringify({ ...envelope, type: "node.created", payload: { node: { ...node, x: "left" } } }));
    expect(damaged).toEqual({ ok: false, seq: 3, problem: expect.stringContaining("payload.node.x") });
    const unknown = parseRoomEvent(JSON.stringify({ ...envelope, seq: 4, type: "node.teleported", payload: {} }));
    expect(unknown).toMatchObject({ ok: false, seq: 4, problem: expect.stringContaining("node.teleported") });
  });

  it("refuses what is not an event at all, with no number", () => {
    expect(parseRoomEvent("{not json")).toEqual({ ok: false, seq: null, problem: "not JSON" });
    expect(parseRoomEvent(JSON.stringify({ type: "presence", payload: { watching: -1 } }))).toMatchObject({ ok: false, seq: null });
  });
});

describe("parseStoredEvents", () => {
  it("keeps the events the catalogue reads, in order, and says what was wrong with each of the others", () => {
    const created = { ...envelope, seq: 1, type: "node.created", payload: { node } };
    const deleted = { ...envelope, seq: 4, type: "edge.deleted", payload: { edgeId: "e1" } };
    const read = parseStoredEvents([
      created,
      { ...envelope, seq: 2, type: "node.created", payload: { node: { ...node, x: "left" } } },
      // A live-only signal is no stored event, whatever the stream makes of it.
      { type: "presence", room_id: "r1", payload: { watching: 2, participants: 1 } },
      deleted,
    ]);
    expect(read.events.map((event) => event.seq)).toEqual([1, 4]);
    expect(read.unreadable).toEqual([
      { seq: 2, problem: expect.stringContaining("payload.node.x") },
      { seq: null, problem: expect.stringContaining("presence") },
    ]);
  });

  it("reads nothing from what is not a list", () => {
    expect(parseStoredEvents({ events: [] })).toEqual({ events: [], unreadable: [{ seq: null, problem: "not a list of events" }] });
  });
});
