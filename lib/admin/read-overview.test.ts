import { describe, expect, it } from "vitest";
import { calendarStarts, dailyAllowances } from "@/lib/usage/read-spend";
import { toSeries } from "./read-overview";

const HOUR = 3_600_000;

describe("the overview's calendar", () => {
  it("starts today at midnight UTC and the week on Monday", () => {
    // Wednesday 25 November 2026, late evening UTC.
    const { today, week } = calendarStarts(new Date("2026-11-25T23:59:59.999Z"));
    expect(today.toISOString()).toBe("2026-11-25T00:00:00.000Z");
    expect(week.toISOString()).toBe("2026-11-23T00:00:00.000Z");
    // On a Monday the week starts that day; on a Sunday, six days before.
    expect(calendarStarts(new Date("2026-11-23T00:00:00.000Z")).week.toISOString()).toBe("2026-11-23T00:00:00.000Z");
    expect(calendarStarts(new Date("2026-11-29T12:00:00.000Z")).week.toISOString()).toBe("2026-11-23T00:00:00.000Z");
  });
});

describe("today's allowances", () => {
  it("say what a daily limit leaves, and that 0 is no limit", () => {
    const today = { calls: 3, inputTokens: 900, outputTokens: 300, costUsd: 2.5 };
    expect(dailyAllowances({ tokens: 1000, costUsd: 0 }, today)).toEqual({
      tokens: { limit: 1000, used: 1200, left: 0 },
      costUsd: { limit: null, used: 2.5, left: null },
    });
    expect(dailyAllowances({ tokens: 0, costUsd: 10 }, today).costUsd).toEqual({ limit: 10, used: 2.5, left: 7.5 });
  });
});

describe("the overview's series", () => {
  const buckets = [0, HOUR, 2 * HOUR];

  it("puts each point in its bucket, the biggest spenders first", () => {
    const series = toSeries(
      [
        { bucket: 0, key: "openai:gpt-5", label: "openai:gpt-5", tokens: 100, costUsd: 0.5 },
        { bucket: 2 * HOUR, key: "openai:gpt-5", label: "openai:gpt-5", tokens: 50, costUsd: 0.25 },
        { bucket: HOUR, key: "script:songwriter", label: "script:songwriter", tokens: 900, costUsd: 0 },
        // Outside the range: not counted.
        { bucket: 7 * HOUR, key: "openai:gpt-5", label: "openai:gpt-5", tokens: 1, costUsd: 1 },
      ],
      buckets,
    );
    expect(series).toEqual([
      { key: "openai:gpt-5", label: "openai:gpt-5", tokens: [100, 0, 50], costUsd: [0.5, 0, 0.25] },
      { key: "script:songwriter", label: "script:songwriter", tokens: [0, 900, 0], costUsd: [0, 0, 0] },
    ]);
  });

  it("shows six on their own and adds up the rest as Other; agents sharing a name are told apart by identity", () => {
    const points = Array.from({ length: 8 }, (_, index) => ({
      bucket: HOUR,
      key: `team/agent-${index}`,
      label: `Agent ${index}`,
      tokens: 10,
      costUsd: index + 1,
    }));
    points.push({ bucket: 0, key: "creative-canvas/songwriter", label: "Songwriter", tokens: 5, costUsd: 20 });
    points.push({ bucket: 0, key: "imported/songwriter", label: "Songwriter", tokens: 5, costUsd: 19 });
    const series = toSeries(points, buckets);
    expect(series.map((line) => line.label)).toEqual([
      "Songwriter (creative-canvas/songwriter)",
      "Songwriter (imported/songwriter)",
      "Agent 7",
      "Agent 6",
      "Agent 5",
      "Agent 4",
      "Other (4)",
    ]);
    expect(series.at(-1)).toEqual({ key: "other", label: "Other (4)", tokens: [0, 40, 0], costUsd: [0, 10, 0] });
  });
});
