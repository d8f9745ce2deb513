import { describe, expect, it } from "vitest";
import { agentDto, broadcastDto, broadcastResponseDto, runDto } from "@/test/builders";
import { agentStatus, formatCost, formatUsage, withRemoteTask } from "./agent-status";

const painter = agentDto({ id: "painter", name: "Scene Painter", persona: "scene-painter" });
const question = broadcastDto({
  id: "b1",
  agentId: "songwriter",
  agentName: "Songwriter",
  mode: "agents",
  status: "pending",
  targetAgentIds: ["painter", "storyteller"],
});

describe("agentStatus", () => {
  it("says a teammate is answering a question while its shadow works, not idle", () => {
    expect(agentStatus(painter, {}, {}, 0, { b1: question }, {})).toMatchObject({
      kind: "answering",
      label: "answering Songwriter's question",
    });
  });

  it("is idle again once its answer is in, or the question closed", () => {
    const answered = { b1: [broadcastResponseDto({ broadcastId: "b1", responderId: "painter" })] };
    expect(agentStatus(painter, {}, {}, 0, { b1: question }, answered).kind).toBe("idle");
    expect(agentStatus(painter, {}, {}, 0, { b1: { ...question, status: "complete" } }, {}).kind).toBe("idle");
  });

  it("shows its own work first: a running agent is running", () => {
    const running = runDto({ id: "r1", agentId: "painter", status: "running", steps: 1 });
    expect(agentStatus(painter, { r1: running }, {}, 0, { b1: question }, {})).toMatchObject({
      kind: "running",
      label: "running · step 2",
    });
  });
});

describe("formatUsage", () => {
  const spent = { durationMs: 1234, inputTokens: 100, outputTokens: 20, costUsd: 0 };

  it("says 'cost unknown' for a model without a known price, never $0.0000", () => {
    expect(formatUsage(spent, { model: "openai-compatible:llama3" })).toBe("1.2s · 120 tok · cost unknown");
    expect(formatUsage(spent, { model: undefined })).toBe("1.2s · 120 tok · cost unknown");
    expect(formatUsage(spent, { costKnown: false })).toBe("1.2s · 120 tok · cost unknown");
  });

  it("shows the cost of a priced model, the offline one included", () => {
    expect(formatUsage({ ...spent, costUsd: 0.0123 }, { model: "openai:gpt-5" })).toBe("1.2s · 120 tok · $0.0123");
    expect(formatUsage(spent, { model: "script:songwriter" })).toBe("1.2s · 120 tok · $0.0000");
    expect(formatUsage({ inputTokens: 1, outputTokens: 1, costUsd: 0.5 }, { costKnown: true })).toBe("2 tok · $0.5000");
  });

  it("shows what is known of a total that is only partly priced", () => {
    expect(formatCost(0.0123, { costKnown: false })).toBe("$0.0123 + cost unknown");
  });
});

describe("agentStatus of an outside agent", () => {
  const outside = agentDto({ id: "claude", name: "Claude Code", persona: "external-claudecode", model: "external:mcp" });

  it("is working for a minute after its last call, then idle, and never 'cannot run'", () => {
    expect(agentStatus(outside, {}, {}, 100_000, {}, {}, 100_000 - 59_000)).toMatchObject({ kind: "running", label: "working" });
    expect(agentStatus(outside, {}, {}, 100_000, {}, {}, 100_000 - 61_000)).toMatchObject({ kind: "idle", label: "idle" });
    expect(agentStatus({ ...outside, unavailableReason: "Unknown model provider" }, {}, {}, 0).kind).toBe("idle");
  });

  it("is asking while its question waits for answers", () => {
    const asked = broadcastDto({ id: "b2", agentId: "claude", agentName: "Claude Code", mode: "agents", status: "pending" });
    expect(agentStatus(outside, {}, {}, 0, { b2: asked }, {})).toMatchObject({ kind: "asking" });
  });
});

describe("an A2A teammate's card", () => {
  const remote = agentDto({ id: "remote", name: "Researcher", persona: "researcher", model: "a2a:https://agents.example.com/card" });

  it("shows its remote task's state while it runs, and the last one after", () => {
    const running = runDto({ id: "r1", agentId: "remote", status: "running", steps: 0 });
    expect(withRemoteTask(agentStatus(remote, { r1: running }, {}, 0), { state: "working" })).toMatchObject({
      kind: "running",
      label: "running · step 1 · remote task working",
    });
    expect(withRemoteTask(agentStatus(remote, {}, {}, 0), { state: "input-required" }).label).toBe(
      "idle · last remote task input-required",
    );
    expect(withRemoteTask(agentStatus(remote, {}, {}, 0), undefined).label).toBe("idle");
  });
});
