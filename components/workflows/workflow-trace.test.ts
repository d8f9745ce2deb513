import { describe, expect, it } from "vitest";
import type { WorkflowDetail } from "@/lib/workflows/read-workflow";
import { storedEvent } from "@/test/builders";
import { newestSeqOf, withNewMessages } from "./workflow-trace";

const event = (seq: number, correlationId: string) =>
  storedEvent("run.started", { runId: "r", agentId: "a", attempt: 1, startedAt: "2030-01-01T00:00:00.000Z" }, { seq, correlation_id: correlationId });

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
