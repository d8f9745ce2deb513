import { createElement } from "react";
import { renderToStaticMarkup } from "react-dom/server";
import { afterEach, describe, expect, it, vi } from "vitest";
import type { WorkflowDetail } from "@/lib/workflows/read-workflow";
import { storedEvent } from "@/test/builders";
import { WorkflowTimeline, newestSeqOf, newestSeqRead, readWorkflow, withNewMessages, withUnreadable } from "./workflow-trace";

afterEach(() => {
  vi.restoreAllMocks();
});

const event = (seq: number, correlationId: string) =>
  storedEvent(
    "run.started",
    { runId: "r", agentId: "a", attempt: 1, startedAt: "2030-01-01T00:00:00.000Z" },
    { seq, correlation_id: correlationId },
  );

function detail(seqs: number[], overrides: Partial<WorkflowDetail> = {}): WorkflowDetail {
  return {
    correlationId: "c",
    status: "active",
    startedBy: { agentId: "a", prompt: "p", trigger: "human" },
    runs: 1,
    startedAt: "2030-01-01T00:00:00.000Z",
    endedAt: null,
    durationMs: null,
    inputTokens: 0,
    outputTokens: 0,
    costUsd: 0,
    costKnown: true,
    attempts: 1,
    agents: [],
    runList: [],
    messages: seqs.map((seq) => event(seq, "c")),
    nextAfter: null,
    ...overrides,
  };
}

describe("the workflow trace", () => {
  it("reads again only for events of its own workflow", () => {
    const feed = [event(1, "c"), event(2, "other"), event(3, "c"), event(4, "other")];
    expect(newestSeqOf(feed, "c")).toBe(3);
    expect(newestSeqOf(feed, "none")).toBe(0);
  });

  it("adds the messages read since, once each and in order, with the newest totals", () => {
    const merged = withNewMessages(detail([1, 2, 3]), detail([3, 5, 4], { status: "complete", runs: 2 }), false);
    expect(merged.messages.map((message) => message.seq)).toEqual([1, 2, 3, 4, 5]);
    expect(merged).toMatchObject({ status: "complete", runs: 2, nextAfter: null });
  });

  it("keeps a list that stopped at its first page as it is, and updates only the totals", () => {
    const shown = detail([1, 2], { nextAfter: 2 });
    const merged = withNewMessages(shown, detail([9], { status: "degraded" }), true);
    expect(merged.messages.map((message) => message.seq)).toEqual([1, 2]);
    expect(merged).toMatchObject({ status: "degraded", nextAfter: 2 });
  });
});

describe("a workflow read from the server", () => {
  it("leaves out and reports the messages the shared schema refuses, and shows how many", () => {
    const report = vi.spyOn(console, "error").mockImplementation(() => {});
    const fetched = detail([1, 2, 3]);
    const { workflow, unreadable } = readWorkflow(
      { ...fetched, messages: [fetched.messages[0], { ...fetched.messages[1], status: "maybe" }, fetched.messages[2]] },
      "workflow c",
    );
    expect(workflow.messages.map((message) => message.seq)).toEqual([1, 3]);
    expect(workflow).toMatchObject({ correlationId: "c", runs: 1 });
    expect(unreadable).toEqual([{ seq: 2, problem: expect.stringContaining("status") }]);
    expect(report).toHaveBeenCalledWith(expect.stringContaining("could not read event #2 of workflow c"));
    const markup = renderToStaticMarkup(
      createElement(WorkflowTimeline, {
        trace: workflow,
        unreadable: unreadable.length,
        agents: [],
        nodeText: () => undefined,
        exportHref: "/export",
      }),
    );
    expect(markup.match(/data-testid="trace-message"/g)).toHaveLength(2);
    expect(markup).toContain("1 event could not be read and is not shown");
  });

  it("reads on after the newest message it was sent, even one it could not read", () => {
    vi.spyOn(console, "error").mockImplementation(() => {});
    const fetched = detail([4, 5]);
    const { workflow, unreadable } = readWorkflow(
      { ...fetched, messages: [fetched.messages[0], { ...fetched.messages[1], payload: {} }] },
      "workflow c",
    );
    expect(newestSeqRead(workflow, unreadable)).toBe(5);
    expect(newestSeqRead(detail([]), [])).toBe(0);
  });

  it("counts an unreadable message once, however often it was read", () => {
    const first = withUnreadable(new Set(), [
      { seq: 5, problem: "run.started (payload)" },
      { seq: null, problem: "event (type)" },
    ]);
    const again = withUnreadable(first, [
      { seq: 5, problem: "run.started (payload)" },
      { seq: 8, problem: "run.step (payload)" },
    ]);
    expect(again.size).toBe(3);
    expect(withUnreadable(again, [])).toBe(again);
  });
});
