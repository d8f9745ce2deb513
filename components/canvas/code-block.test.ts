import { describe, expect, it } from "vitest";
import { type RoomSnapshotLike, type RoomState, applyRoomEvent, initialRoomState } from "@/components/room/room-state";
import { DEFAULT_ROOM_SETTINGS } from "@/lib/rooms/room-settings";
import { FIXTURE_TIME, nodeDto, storedEvent } from "@/test/builders";
import { highlightCode } from "./code-block";

describe("highlightCode", () => {
  it("highlights in the language the Coder named, by name or alias, in any case", () => {
    const python = highlightCode("def count(words):\n    return len(words)", "Python");
    expect(python.language).toBe("python");
    expect(python.html).toContain('<span class="hljs-keyword">def</span>');
    expect(highlightCode("fn main() { let x = 1; }", "rust").html).toContain('<span class="hljs-keyword">fn</span>');
    expect(highlightCode("const x: number = 1;", "ts")).toMatchObject({ language: "ts", html: expect.stringContaining("hljs-keyword") });
  });

  it("does not guess when the language named is one it does not know: plain, escaped text", () => {
    const plain = highlightCode("if a < b then <script>", "brainfudge");
    expect(plain).toEqual({ html: "if a &lt; b then &lt;script&gt;", language: null });
  });

  it("guesses among the common languages only for code with no language", () => {
    expect(highlightCode("def count(words):\n    return len(words)\n", null).language).toBe("python");
  });
});

describe("a code node's version", () => {
  const snapshot = {
    room: { id: "r", title: "T", template: "build-review", lastSeq: 1, createdAt: FIXTURE_TIME, lastActivityAt: FIXTURE_TIME },
    settings: DEFAULT_ROOM_SETTINGS,
    agents: [],
    nodes: [nodeDto({ id: "code", kind: "code", text: "v1", version: 1 })],
    edges: [],
    runs: [],
    board: [],
    broadcasts: [],
    broadcastResponses: [],
    findings: [],
    pendingCommands: [],
    recentEvents: [],
    lastSeq: 1,
    codeNodes: [{ nodeId: "code", reviewId: "rev", version: 1, language: "python" }],
  } as Partial<RoomSnapshotLike> as RoomSnapshotLike;

  const apply = (state: RoomState, event: Parameters<typeof applyRoomEvent>[1]) => {
    const outcome = applyRoomEvent(state, event);
    if (outcome.kind !== "applied") throw new Error(outcome.kind);
    return outcome.state;
  };

  it("is the version the Coder submitted, not the node's, which every move bumps", () => {
    let state = initialRoomState(snapshot, null);
    expect(state.codeNodes.code).toEqual({ nodeId: "code", reviewId: "rev", version: 1, language: "python" });
    state = apply(state, storedEvent("node.updated", { nodeId: "code", changes: { x: 40, y: 80 }, version: 2, updatedAt: FIXTURE_TIME }, { seq: 2 }));
    state = apply(state, storedEvent("canvas.tidied", { positions: [{ nodeId: "code", x: 0, y: 0, version: 3 }], updatedAt: FIXTURE_TIME }, { seq: 3 }));
    expect(state.nodes.code!.version).toBe(3);
    expect(state.codeNodes.code!.version).toBe(1);
    state = apply(state, storedEvent("review.code", { reviewId: "rev", nodeId: "code", version: 2, language: "typescript" }, { seq: 4 }));
    expect(state.codeNodes.code).toEqual({ nodeId: "code", reviewId: "rev", version: 2, language: "typescript" });
  });
});
