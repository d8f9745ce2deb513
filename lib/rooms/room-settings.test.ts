import { describe, expect, it } from "vitest";
import { DEFAULT_CONCERN_PHRASES } from "@/lib/dialogue/detect";
import { DEFAULT_ROOM_SETTINGS, MIN_CONTEXT_TOKEN_BUDGET, parseRoomSettings, roomSettingsPatchSchema } from "./room-settings";

describe("room settings", () => {
  it("default to the limits the behaviour documents name", () => {
    expect(DEFAULT_ROOM_SETTINGS).toMatchObject({
      max_concurrent_runs: 3,
      max_steps: 10,
      max_chain_depth: 3,
      max_requests_per_run: 1,
      board_expiry_minutes: 60,
      board_entries_in_prompt: 15,
      context_token_budget: 2000,
      scheduler_enabled: false,
      scheduler_interval_seconds: 45,
      broadcast: "off",
      broadcast_timeout: 300,
      max_broadcasts_per_agent: 10,
      broadcast_sensitivity: "medium",
      response_depth: "medium",
    });
  });

  it("default the concern phrases to the dialogue detector's seven, each room with a copy of its own", () => {
    expect(DEFAULT_ROOM_SETTINGS.concern_phrases).toEqual([
      "concern",
      "unclear",
      "not sure",
      "could you",
      "can you explain",
      "why did you",
      "question about",
    ]);
    expect(DEFAULT_ROOM_SETTINGS.concern_phrases).toEqual([...DEFAULT_CONCERN_PHRASES]);
    const room = parseRoomSettings({});
    expect(room.concern_phrases).toEqual([...DEFAULT_CONCERN_PHRASES]);
    room.concern_phrases.push("looks off");
    expect(parseRoomSettings({}).concern_phrases).toEqual([...DEFAULT_CONCERN_PHRASES]);
    expect(DEFAULT_ROOM_SETTINGS.concern_phrases).toHaveLength(DEFAULT_CONCERN_PHRASES.length);
  });

  it("read stored settings leniently but accept changes strictly", () => {
    expect(parseRoomSettings({ max_steps: 4, max_chain_depth: "lots", legacy: true })).toMatchObject({ max_steps: 4, max_chain_depth: 3 });
    expect(parseRoomSettings(null)).toEqual(DEFAULT_ROOM_SETTINGS);
    expect(roomSettingsPatchSchema.safeParse({ broadcast: "human" }).success).toBe(true);
    expect(roomSettingsPatchSchema.safeParse({ legacy: true }).success).toBe(false);
    expect(roomSettingsPatchSchema.safeParse({ max_concurrent_runs: 0 }).success).toBe(false);
  });

  it("hold open dialogues to 2 unless the room says otherwise, from 1 to 10", () => {
    expect(DEFAULT_ROOM_SETTINGS.max_open_dialogues).toBe(2);
    for (const value of [1, 10]) expect(roomSettingsPatchSchema.safeParse({ max_open_dialogues: value }).success).toBe(true);
    for (const value of [0, 11, 2.5]) expect(roomSettingsPatchSchema.safeParse({ max_open_dialogues: value }).success).toBe(false);
    expect(parseRoomSettings({ max_open_dialogues: 99 }).max_open_dialogues).toBe(2);
  });

  it("parse a change to only the keys it names, without filling in defaults", () => {
    expect(roomSettingsPatchSchema.parse({ max_steps: 5 })).toEqual({ max_steps: 5 });
    expect(roomSettingsPatchSchema.parse({})).toEqual({});
  });

  it("refuse a context token budget too small to hold a run's request, saying why", () => {
    expect(roomSettingsPatchSchema.safeParse({ context_token_budget: MIN_CONTEXT_TOKEN_BUDGET }).success).toBe(true);
    const refused = roomSettingsPatchSchema.safeParse({ context_token_budget: MIN_CONTEXT_TOKEN_BUDGET - 1 });
    expect(refused.error?.issues[0]?.message).toBe(
      `must be at least ${MIN_CONTEXT_TOKEN_BUDGET} tokens: less cannot hold the canvas line and the request a run serves`,
    );
    expect(parseRoomSettings({ context_token_budget: 10 }).context_token_budget).toBe(DEFAULT_ROOM_SETTINGS.context_token_budget);
  });
});
