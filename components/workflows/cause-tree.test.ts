import { describe, expect, it } from "vitest";
import { storedEvent } from "@/test/builders";
import { causeTree, treeSize } from "./cause-tree";

const message = (seq: number, cause: string | null | undefined) =>
  storedEvent(
    "run.started",
    { runId: "r", agentId: "a", attempt: 1, startedAt: "2030-01-01T00:00:00.000Z" },
    { seq, id: `e${seq}`, correlation_id: "c", ...(cause === undefined ? {} : { causation_id: cause }) },
  );

describe("the tree of causes", () => {
  it("puts each message under the one that caused it, in order", () => {
    const tree = causeTree([message(1, null), message(2, "e1"), message(3, "e2"), message(4, "e1"), message(5, "e2")]);
    expect(tree).toHaveLength(1);
    const [root] = tree;
    expect(root?.event.seq).toBe(1);
    expect(root?.children.map((child) => child.event.seq)).toEqual([2, 4]);
    expect(root?.children[0]?.children.map((child) => child.event.seq)).toEqual([3, 5]);
    expect(root ? treeSize(root) : 0).toBe(5);
  });

  it("starts a tree for a message without a cause, with one from elsewhere, and with a cause stored after it", () => {
    const tree = causeTree([message(1, undefined), message(2, "elsewhere"), message(3, "e4"), message(4, null)]);
    expect(tree.map((node) => node.event.seq)).toEqual([1, 2, 3, 4]);
  });
});

describe("the trace shown as a tree", () => {
  it("nests each message in a list under its cause, each branch behind a button that says it is open", async () => {
    const { createElement } = await import("react");
    const { renderToStaticMarkup } = await import("react-dom/server");
    const { CauseTreeView } = await import("./workflow-trace");
    const markup = renderToStaticMarkup(
      createElement(CauseTreeView, {
        messages: [message(1, null), message(2, "e1"), message(3, "e2")],
        start: Date.parse("2030-01-01T00:00:00.000Z"),
        agents: [],
        nodeText: () => undefined,
      }),
    );
    expect(markup.match(/data-testid="trace-node"/g)).toHaveLength(3);
    expect(markup.match(/aria-expanded="true"/g)).toHaveLength(2);
    // The third message is inside the second, which is inside the first.
    expect(markup).toMatch(
      /<ul[^>]*data-testid="trace-tree"[^>]*><li[^>]*><div.*?<ul id="[^"]+" class="trace__children"><li.*?<ul id="[^"]+" class="trace__children"><li/,
    );
  });
});
