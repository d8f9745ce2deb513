import { createElement } from "react";
import { renderToStaticMarkup } from "react-dom/server";
import { afterEach, describe, expect, it, vi } from "vitest";
import { storedEvent } from "@/test/builders";
import { UnreadableEvents, readFetchedEvents } from "./fetched-events";

afterEach(() => {
  vi.restoreAllMocks();
});

const started = (seq: number) =>
  storedEvent("run.started", { runId: "r", agentId: "a", attempt: 1, startedAt: "2030-01-01T00:00:00.000Z" }, { seq });

describe("fetched events", () => {
  it("drops the events the shared schema refuses and reports each on the console", () => {
    const report = vi.spyOn(console, "error").mockImplementation(() => {});
    const damaged = { ...started(2), payload: { runId: "r" } };
    const read = readFetchedEvents([started(1), damaged, started(3), "junk"], "room r's log");
    expect(read.events.map((event) => event.seq)).toEqual([1, 3]);
    expect(read.unreadable.map((each) => each.seq)).toEqual([2, null]);
    expect(report.mock.calls.map(([message]) => message)).toEqual([
      expect.stringMatching(/^\[parley\] could not read event #2 of room r's log: run\.started \(payload\.agentId/),
      expect.stringMatching(/^\[parley\] could not read an event of room r's log: event/),
    ]);
  });

  it("reports nothing when every event reads", () => {
    const report = vi.spyOn(console, "error").mockImplementation(() => {});
    expect(readFetchedEvents([started(1)], "room r's log").unreadable).toEqual([]);
    expect(report).not.toHaveBeenCalled();
  });

  it("says on the page how many were left out, and nothing when none was", () => {
    const note = (count: number) => renderToStaticMarkup(createElement(UnreadableEvents, { count }));
    expect(note(0)).toBe("");
    expect(note(1)).toContain("1 event could not be read and is not shown");
    expect(note(3)).toContain("3 events could not be read and are not shown");
    expect(note(3)).toContain('data-testid="events-unreadable"');
  });
});
