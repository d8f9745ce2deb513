import { describe, expect, it } from "vitest";
import type { FindingDto } from "@/lib/findings/finding-dto";
import { keysetCursorSchema } from "@/lib/paging/keyset-cursor";
import { FIXTURE_TIME, boardEntryDto, storedEvent } from "@/test/builders";
import { EVERY_FINDING, findingDestination, matchesFilter, olderCursor, olderFindingsQuery, visibleFindings } from "./findings-view";

/** A finding posted `minute` minutes after the fixture time. */
function finding(id: string, minute: number, overrides: Partial<FindingDto> = {}): FindingDto {
  return {
    id,
    runId: null,
    agentId: "sw",
    agentName: "Songwriter",
    finding: `Finding ${id}`,
    severity: "medium",
    nodeIds: [],
    createdAt: new Date(Date.parse(FIXTURE_TIME) + minute * 60_000).toISOString(),
    ...overrides,
  };
}

const ids = (findings: FindingDto[]) => findings.map((each) => each.id);

describe("the findings board's view", () => {
  const live = [
    finding("a", 1, { severity: "low" }),
    finding("b", 2, { severity: "high", agentId: "sp", agentName: "Scene Painter" }),
    finding("c", 3, { severity: "high" }),
    finding("d", 4, { agentId: "sp", agentName: "Scene Painter" }),
  ];

  it("lists the live findings newest first, filtered by severity, by agent, or both", () => {
    expect(ids(visibleFindings(live, [], EVERY_FINDING))).toEqual(["d", "c", "b", "a"]);
    expect(ids(visibleFindings(live, [], { severity: "high", agentId: "all" }))).toEqual(["c", "b"]);
    expect(ids(visibleFindings(live, [], { severity: "all", agentId: "sp" }))).toEqual(["d", "b"]);
    expect(ids(visibleFindings(live, [], { severity: "high", agentId: "sp" }))).toEqual(["b"]);
    expect(ids(visibleFindings(live, [], { severity: "low", agentId: "sp" }))).toEqual([]);
    expect(matchesFilter(live[0]!, { severity: "low", agentId: "sw" })).toBe(true);
    expect(matchesFilter(live[0]!, { severity: "medium", agentId: "sw" })).toBe(false);
  });

  it("follows them with the older pages, each finding once and only those that match", () => {
    // A finding both held and fetched (it arrived live while the page was fetched) is listed once.
    const pages = [[live[0]!, finding("z", 0, { severity: "high" }), finding("y", -1)], [finding("x", -2, { severity: "high" })]];
    expect(ids(visibleFindings(live, pages, EVERY_FINDING))).toEqual(["d", "c", "b", "a", "z", "y", "x"]);
    expect(ids(visibleFindings(live, pages, { severity: "high", agentId: "all" }))).toEqual(["c", "b", "z", "x"]);
  });

  it("pages back from the oldest finding shown by its time and id, the API's cursor", () => {
    const cursor = olderCursor(live[0]);
    expect(cursor).not.toBeNull();
    expect(keysetCursorSchema.parse(cursor)).toEqual({ at: "2026-11-22T10:01:00.000Z", id: "a" });
    expect(olderCursor(undefined)).toBeNull();
  });

  it("asks the API for the filter's findings only", () => {
    const cursor = olderCursor(live[0])!;
    expect(new URLSearchParams(olderFindingsQuery(EVERY_FINDING, cursor))).toEqual(new URLSearchParams({ cursor, limit: "50" }));
    expect(Object.fromEntries(new URLSearchParams(olderFindingsQuery({ severity: "high", agentId: "sp" }, cursor, 20)))).toEqual({
      cursor,
      limit: "20",
      severity: "high",
      agent: "sp",
    });
  });

  it("leads to the finding's feed entry when the feed holds it, and says so when the entry is older", () => {
    const withNodes = finding("f1", 1, { nodeIds: ["n1", "gone"] });
    const posted = storedEvent(
      "board.posted",
      { entry: boardEntryDto({ id: "f1", kind: "finding", content: { finding: "x", severity: "medium" } }) },
      { seq: 42 },
    );
    const onCanvas = (nodeId: string) => nodeId === "n1";
    expect(findingDestination(withNodes, [posted], onCanvas)).toEqual({ kind: "feed", seq: 42, nodeIds: ["n1"] });

    const older = findingDestination(withNodes, [], onCanvas);
    expect(older).toMatchObject({ kind: "older", nodeIds: ["n1"] });
    expect(older.kind === "older" && older.notice).toBe(
      "Its entry is older than the latest 300 events the activity feed keeps; its note is highlighted on the canvas.",
    );
    const removed = findingDestination(finding("f2", 1, { nodeIds: ["gone"] }), [], onCanvas);
    expect(removed.kind === "older" && removed.notice).toMatch(/the notes it points at are no longer on the canvas\.$/);
    const bare = findingDestination(finding("f3", 1), [posted], onCanvas);
    expect(bare.kind === "older" && bare.notice).toMatch(/; it points at no notes on the canvas\.$/);
  });
});
