import { describe, expect, it } from "vitest";
import type { StoredEvent } from "@/lib/protocol";
import { FIXTURE_TIME, agentDto, brainstormDto, nodeDto, rankedCandidateDto, runDto, storedEvent } from "@/test/builders";
import { isTraceable, workflowIdsIn } from "./traceable";

const agents = [agentDto({ id: "sw", persona: "songwriter", name: "Songwriter" })];
const person = { agent: "human:s1", agent_name: "Ada" };
const system = { agent: "system", agent_name: "Parley" };

describe("a feed entry's trace", () => {
  const brainstorm = brainstormDto();
  const inBrainstorm = { ...system, correlation_id: brainstorm.correlationId };

  it("is offered on every entry of a brainstorm: its stages and its gate, whoever wrote them", () => {
    const stage = storedEvent(
      "brainstorm.stage",
      { brainstormId: brainstorm.id, stage: "framing", status: "running", pass: 1, rerun: false, count: null, shortfall: null, brainstorm },
      inBrainstorm,
    );
    const gate = storedEvent(
      "brainstorm.gate_opened",
      { brainstormId: brainstorm.id, round: 1, ranking: [rankedCandidateDto()], brainstorm },
      inBrainstorm,
    );
    const decision = {
      round: 1,
      action: "approve" as const,
      candidateId: "c1",
      comment: null,
      byId: "human:s1",
      byName: "Ada",
      at: FIXTURE_TIME,
    };
    const decided = storedEvent(
      "brainstorm.gate_decided",
      { brainstormId: brainstorm.id, decision, brainstorm },
      { ...person, correlation_id: brainstorm.correlationId },
    );
    for (const event of [stage, gate, decided]) expect(isTraceable(event, agents, new Set()), event.type).toBe(true);
  });

  it("is offered on a person's answer to an agent's question", () => {
    const response = storedEvent(
      "broadcast.response",
      {
        response: {
          id: "r1",
          broadcastId: "q1",
          responderId: "human:s1",
          responderName: "Ada",
          isHuman: true,
          content: "Rain",
          durationMs: 900,
          inputTokens: 0,
          outputTokens: 0,
          costUsd: 0,
          createdAt: FIXTURE_TIME,
        },
      },
      { ...person, correlation_id: "run-workflow" },
    );
    expect(isTraceable(response, agents, new Set())).toBe(true);
  });

  it("is offered on any entry whose correlation id the feed shows to be a run's workflow, and on no other person's edit", () => {
    const queued = storedEvent("run.queued", { run: runDto() }, { ...person, correlation_id: "run-workflow" });
    const served = storedEvent(
      "board.request_updated",
      { entryId: "b1", status: "queued", runId: null },
      { ...system, correlation_id: "run-workflow" },
    );
    const edit = storedEvent("node.created", { node: nodeDto() }, { ...person, correlation_id: "room_edit" });
    const feed: StoredEvent[] = [queued, served, edit];
    const workflows = workflowIdsIn(feed);
    expect([...workflows]).toEqual(["run-workflow"]);
    expect(isTraceable(served, agents, workflows)).toBe(true);
    expect(isTraceable(edit, agents, workflows)).toBe(false);
    // The same edit by an agent is part of its run's work.
    expect(isTraceable({ ...edit, agent: "sw", agent_name: "Songwriter" }, agents, workflows)).toBe(true);
  });
});
