import { describe, expect, it } from "vitest";
import type { StageStateDto } from "@/lib/protocol/brainstorm";
import { formatElapsed, stageCount, stageElapsed } from "./stage-figures";

const state = (change: Partial<StageStateDto>): StageStateDto => ({
  status: "running",
  passes: 1,
  rerun: false,
  startedAt: null,
  endedAt: null,
  count: null,
  shortfall: null,
  timedOut: false,
  ...change,
});

describe("stage figures", () => {
  it("says how long in seconds, minutes and hours", () => {
    expect(formatElapsed(12_400)).toBe("12s");
    expect(formatElapsed(65_000)).toBe("1m 05s");
    expect(formatElapsed(2 * 3600_000 + 3 * 60_000)).toBe("2h 03m");
    expect(formatElapsed(-5)).toBe("0s");
  });

  it("runs the clock while a stage runs or waits, and stops it when it ends", () => {
    const startedAt = "2026-01-01T00:00:00.000Z";
    const now = Date.parse(startedAt) + 90_000;
    expect(stageElapsed(state({ startedAt }), now)).toBe(90_000);
    expect(stageElapsed(state({ status: "awaiting", startedAt, endedAt: null }), now)).toBe(90_000);
    expect(stageElapsed(state({ status: "done", startedAt, endedAt: "2026-01-01T00:00:30.000Z" }), now)).toBe(30_000);
    expect(stageElapsed(state({ status: "pending" }), now)).toBeNull();
  });

  it("counts a stage's artifact against what it must hold", () => {
    expect(stageCount("divergent", state({ count: 23 }))).toBe("23 ideas of 20–60");
    expect(stageCount("precedents", state({ count: 6 }))).toBe("6 precedents of at least 5");
    expect(stageCount("framing", state({ count: null }))).toBeNull();
    expect(stageCount("divergent", state({ count: null }))).toBeNull();
  });

  it("counts candidates out of those the stage's pass covers, not out of all the candidates", () => {
    expect(stageCount("fact_check", state({ count: 5, total: 7 }))).toBe("5 of 7 candidates checked");
    // A deepened candidate: its fact checking pass covers that one alone.
    expect(stageCount("fact_check", state({ count: 1, total: 1 }))).toBe("1 of 1 candidates checked");
    // Three of six candidates survived checks and pushback: prioritization scores those three.
    expect(stageCount("prioritization", state({ count: 3, total: 3 }))).toBe("3 of 3 candidates scored");
    expect(stageCount("pushback", state({ count: 0, total: 6 }))).toBe("0 of 6 candidates challenged");
    // A stage stored without its total says its count alone.
    expect(stageCount("pushback", state({ count: 4 }))).toBe("4 candidates challenged");
  });
});
