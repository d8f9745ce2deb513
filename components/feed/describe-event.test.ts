import { describe, expect, it } from "vitest";
import type { BoardEntryDto, BoardEntryKindName, PayloadOf, StoredEventType } from "@/lib/protocol";
import { FIXTURE_TIME, agentDto, boardEntryDto, brainstormDto, edgeDto, rankedCandidateDto, storedEvent } from "@/test/builders";
import { describeEvent } from "./describe-event";

const agents = [
  agentDto({ id: "sw", persona: "songwriter", name: "Songwriter" }),
  agentDto({ id: "sp", persona: "scene-painter", name: "Scene Painter" }),
];

const event = <T extends StoredEventType>(type: T, payload: PayloadOf<T>) =>
  storedEvent(type, payload, { agent: "sw", agent_name: "Songwriter" });

const entry = (kind: BoardEntryKindName, content: Record<string, unknown>, extra: Partial<BoardEntryDto> = {}) =>
  boardEntryDto({ id: "b1", kind, content, agentName: "Songwriter", targetPersona: null, ...extra });

describe("describeEvent", () => {
  const context = { agents, nodeText: (id: string) => ({ v: "Verse one", s: "A rainy scene" })[id] };

  it("tells who asked whom for what, linked to the nodes concerned", () => {
    const line = describeEvent(
      event("board.posted", {
        entry: entry(
          "request",
          { targetPersona: "scene-painter", ask: "Paint the verse", refNodeIds: ["v"] },
          { targetPersona: "scene-painter" },
        ),
      }),
      context,
    );
    expect(line.text).toBe("asked Scene Painter to paint the verse");
    expect(line.nodeIds).toEqual(["v"]);
  });

  it("links a reaction to what it answers", () => {
    const contribution = entry("contribution", { summary: "Wrote a verse", nodeIds: ["v"] });
    const line = describeEvent(
      event("board.posted", {
        entry: entry("reaction", { toEntryId: "b1", response: "Painted it" }, { id: "b2", agentName: "Scene Painter" }),
      }),
      { ...context, boardEntry: (id) => (id === "b1" ? contribution : undefined) },
    );
    expect(line).toMatchObject({ text: "reacted to Songwriter's contribution", detail: "Painted it", nodeIds: ["v"] });
    expect(line.inReplyTo).toBe("Songwriter: Wrote a verse");
  });

  it("shows a step's message, tools and figures", () => {
    const line = describeEvent(
      event("run.step", {
        runId: "r",
        agentId: "sw",
        step: 1,
        text: "Verse first.",
        toolCalls: [
          { id: "1", name: "create_node", input: {} },
          { id: "2", name: "create_node", input: {} },
        ],
        toolResults: [
          { id: "1", name: "create_node", output: { ok: true, node: { id: "v" } } },
          { id: "2", name: "create_node", error: "boom" },
        ],
        durationMs: 1500,
        inputTokens: 1000,
        outputTokens: 234,
        costUsd: 0.0123,
      }),
      context,
    );
    expect(line).toMatchObject({ message: "Verse first.", chips: ["added a node ×2", "1 tool error"], nodeIds: ["v"], tone: "error" });
    expect(line.meta).toBe("step 2 · 1.5s · 1,234 tok · $0.0123");
  });

  it("leaves a dialogue's turn to the dialogue's thread, so each line shows once", () => {
    const turn = {
      runId: "turn-1",
      agentId: "sw",
      step: 0,
      text: "Split on whitespace, not on single spaces.",
      toolCalls: [],
      toolResults: [],
      durationMs: 900,
      inputTokens: 10,
      outputTokens: 5,
      costUsd: 0,
    };
    const inThread = { ...context, saidInDialogue: (runId: string) => runId === "turn-1" };
    expect(describeEvent(event("run.step", turn), inThread).hidden).toBe(true);
    expect(describeEvent(event("run.step", { ...turn, runId: "other" }), inThread)).toMatchObject({ message: turn.text });
    expect(describeEvent(event("run.step", turn), context)).toMatchObject({ message: turn.text });
  });

  it("says 'cost unknown' for a model without a known price, never $0.0000", () => {
    const unpriced = { ...context, agents: context.agents.map((agent) => ({ ...agent, model: "openai-compatible:local-model" })) };
    const step = {
      runId: "r",
      agentId: "sw",
      step: 0,
      text: "",
      toolCalls: [],
      toolResults: [],
      durationMs: 900,
      inputTokens: 10,
      outputTokens: 5,
      costUsd: 0,
    };
    expect(describeEvent(event("run.step", step), unpriced).meta).toBe("step 1 · 0.9s · 15 tok · cost unknown");
    expect(describeEvent(event("run.step", step), context).meta).toBe("step 1 · 0.9s · 15 tok · $0.0000");
  });

  it("says who answered whose help request, in the helper's words", () => {
    const answered = storedEvent(
      "help.answered",
      { requestEntryId: "b1", askerAgentId: "sw", helperAgentId: "sp", answered: true, text: "Open with the keeper lighting the lamp." },
      { agent: "sp", agent_name: "Scene Painter", target_agent: "sw" },
    );
    const line = describeEvent(answered, context);
    // The feed shows the actor's name, then the line.
    expect(`${answered.agent_name} ${line.text}`).toBe("Scene Painter answered Songwriter's help request");
    expect(line).toMatchObject({ detail: "Open with the keeper lighting the lamp.", tone: "collaboration" });

    const failed = storedEvent(
      "help.answered",
      { requestEntryId: "b1", askerAgentId: "sw", helperAgentId: "sp", answered: false, text: "the provider is down" },
      { agent: "sp", agent_name: "Scene Painter", target_agent: "sw" },
    );
    const failure = describeEvent(failed, context);
    expect(`${failed.agent_name} ${failure.text}`).toBe("Scene Painter could not answer Songwriter's help request");
    expect(failure).toMatchObject({ detail: "the provider is down", tone: "error" });
  });

  it("tells a budget that stopped an agent short of it from one that is spent, with the figures", () => {
    const reached = { limit: "room_daily_cost", runId: "r", agentId: "sw", used: 4.8, allowed: 5, resetsAt: FIXTURE_TIME } as const;
    expect(describeEvent(event("limit.reached", { ...reached, message: "This room's daily cost budget is spent" }), context)).toMatchObject(
      {
        text: "was stopped: the room's daily cost budget is spent",
        tone: "error",
      },
    );
    const ahead = describeEvent(
      event("limit.reached", {
        ...reached,
        expected: 0.35,
        message: "A run of Songwriter would go past this room's daily cost budget: $4.80 of $5.00 used today",
      }),
      context,
    );
    expect(ahead).toMatchObject({
      text: "was stopped: it would go past the room's daily cost budget",
      detail: expect.stringContaining("$4.80 of $5.00"),
      tone: "error",
    });
    // A person's start refused before any run: told as theirs, naming the agent.
    const refused = describeEvent(
      storedEvent(
        "limit.reached",
        { ...reached, runId: null, expected: 0.35, message: "A run of Songwriter would go past" },
        { agent: "u1", agent_name: "Ada" },
      ),
      context,
    );
    expect(`Ada ${refused.text}`).toBe("Ada could not start Songwriter: it would go past the room's daily cost budget");
  });

  it("shows the Coder ready to write a review's code, with what it said it would do", () => {
    const ready = event("review.ready", { reviewId: "r1", text: "Ready: I will split on whitespace." });
    expect(describeEvent(ready, context)).toMatchObject({
      text: "read the brief and is ready to write the code",
      detail: "Ready: I will split on whitespace.",
      tone: "collaboration",
    });
    expect(describeEvent(event("review.ready", { reviewId: "r1", text: "" }), context).detail).toBeUndefined();
  });

  it("says which round of the gate the room is asked to decide, from the second on", () => {
    const ranking = [rankedCandidateDto(), rankedCandidateDto({ id: "c2", title: "Bike lanes", score: 6 })];
    const opened = (round: number) =>
      describeEvent(
        event("brainstorm.gate_opened", { brainstormId: "bs1", round, ranking, brainstorm: brainstormDto({ gateRound: round, ranking }) }),
        context,
      );
    expect(opened(1)).toMatchObject({
      text: "is waiting for the room to decide on a shortlist of 2",
      detail: "1. Car-free Sundays (8) · 2. Bike lanes (6)",
    });
    expect(opened(2).text).toBe("is waiting for the room to decide again (round 2) on a shortlist of 2");
  });

  it("describes canvas changes people make", () => {
    expect(
      describeEvent(event("edge.created", { edge: edgeDto({ id: "e", sourceId: "v", targetId: "s", label: "echoes" }) }), context),
    ).toMatchObject({
      text: "linked two notes: “echoes”",
      detail: "Verse one → A rainy scene",
    });
    expect(
      describeEvent(event("node.updated", { nodeId: "v", changes: { x: 1 }, version: 2, updatedAt: FIXTURE_TIME }), context).quiet,
    ).toBe(true);
    // A build review's new code is announced once, as its version, not also as an edited note.
    const newCode = describeEvent(
      event("node.updated", { nodeId: "c", changes: { text: "export const x = 2;", kind: "code" }, version: 3, updatedAt: FIXTURE_TIME }),
      context,
    );
    expect(newCode.hidden).toBe(true);
    expect(
      describeEvent(event("node.updated", { nodeId: "n", changes: { text: "hello" }, version: 3, updatedAt: FIXTURE_TIME }), context).text,
    ).toBe("edited a note");
    const positions = [1, 2, 3].map((index) => ({ nodeId: `n${index}`, x: index, y: 0, version: 2 }));
    expect(describeEvent(event("canvas.tidied", { positions, updatedAt: FIXTURE_TIME }), context).text).toBe(
      "tidied the canvas (3 notes laid out afresh)",
    );
    expect(describeEvent(event("canvas.tidied", { positions: positions.slice(0, 1), updatedAt: FIXTURE_TIME }), context).text).toBe(
      "tidied the canvas (1 note laid out afresh)",
    );
  });
});
