import { afterEach, describe, expect, it, vi } from "vitest";
import { storedEvent } from "@/test/builders";
import { readEventLogPage } from "./event-log";

afterEach(() => {
  vi.restoreAllMocks();
});

describe("the event log", () => {
  it("shows the events of a page the shared schema reads, and leaves out and reports the others", () => {
    const report = vi.spyOn(console, "error").mockImplementation(() => {});
    const deleted = (seq: number) => storedEvent("edge.deleted", { edgeId: "e1" }, { seq });
    const page = readEventLogPage({ events: [deleted(9), { ...deleted(8), type: "edge.exploded" }, deleted(7)], nextBefore: 7 }, "r1");
    expect(page.events.map((event) => event.seq)).toEqual([9, 7]);
    expect(page.unreadable).toEqual([{ seq: 8, problem: expect.stringContaining("edge.exploded") }]);
    expect(page.nextBefore).toBe(7);
    expect(report).toHaveBeenCalledWith(expect.stringContaining("could not read event #8 of room r1's log"));
  });
});
