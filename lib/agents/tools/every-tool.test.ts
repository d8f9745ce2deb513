import type { ToolExecutionOptions, ToolSet } from "ai";
import { describe, expect, it, vi } from "vitest";
import type { RunPurpose } from "@/db/schema";
import { SUBMIT_TOOL } from "@/lib/brainstorm/prompts";
import { BUILD_REVIEW_PERSONAS } from "@/lib/build-review/advance";
import { callSignature } from "@/lib/limits/repeated-calls";
import { activeRun, unusedDatabase } from "@/test/active-run";
import { agentRow, runRow } from "@/test/builders";
import { createAgentTools } from "./index";
import { toolDefinedAs } from "./writing-tool";

const stages = Object.keys(SUBMIT_TOOL) as (keyof typeof SUBMIT_TOOL)[];

/** A run for every purpose an agent's run can have, and none. */
const purposes: (RunPurpose | null)[] = [
  null,
  { kind: "brief", buildReviewId: "review-1" },
  { kind: "ready", buildReviewId: "review-1" },
  { kind: "code", buildReviewId: "review-1" },
  { kind: "review", buildReviewId: "review-1" },
  { kind: "answer", dialogueId: "dialogue-1" },
  { kind: "reply", dialogueId: "dialogue-1" },
  ...stages.map((stage): RunPurpose => ({ kind: "brainstorm", brainstormId: "brainstorm-1", stage, pass: 1, rerun: false })),
];

function toolsFor(purpose: RunPurpose | null) {
  // A verdict is the Reviewer's to give: its runs are given the tool only.
  const persona = purpose?.kind === "review" ? BUILD_REVIEW_PERSONAS.reviewer : "songwriter";
  const agent = agentRow({ id: "a", name: "Songwriter", persona });
  const active = activeRun(unusedDatabase(), {
    run: runRow({ agentId: agent.id, purpose }),
    agent,
    team: [agent, agentRow({ id: "b", persona: "scene-painter", name: "Scene Painter" })],
    settings: { broadcast: "agents" },
  });
  // Walked as the SDK takes them: any input, checked by each schema before a real call.
  const tools: ToolSet = createAgentTools(active);
  return { active, tools };
}

const callOptions: ToolExecutionOptions<Record<string, unknown>> = { toolCallId: "t", messages: [], context: {} };

describe("every agent tool", () => {
  it("is defined as a writing tool or a reading one, whatever the run is for", () => {
    const seen = new Set<string>();
    for (const purpose of purposes) {
      for (const [name, definition] of Object.entries(toolsFor(purpose).tools)) {
        seen.add(name);
        expect({ name, definedAs: toolDefinedAs(definition) }).not.toEqual({ name, definedAs: "other" });
      }
    }
    // The walk reached the tools of every template: the canvas, the build review and every brainstorm stage.
    expect([...seen]).toEqual(expect.arrayContaining(["create_node", "submit_code", "submit_verdict", ...Object.values(SUBMIT_TOOL)]));
    expect(seen).not.toContain("respond_to_broadcast");
  });

  it("keys a writing call as it is made, before anything is awaited", async () => {
    // Each call fails on the database it is refused; the log of those failures is not what is tested.
    const logged = vi.spyOn(console, "error").mockImplementation(() => {});
    for (const purpose of purposes) {
      const { active, tools } = toolsFor(purpose);
      for (const [name, definition] of Object.entries(tools)) {
        if (toolDefinedAs(definition) !== "writing" || !definition.execute) continue;
        active.state.callsThisStep.clear();
        const input = { probe: name };
        const pending = Promise.resolve(definition.execute(input, callOptions));
        // Read synchronously: the call's key (its count in the step) is taken before the tool's first await.
        expect({ name, counted: active.state.callsThisStep.get(callSignature(name, input)) }).toEqual({ name, counted: 1 });
        // The database given to the tools refuses every use; what the call does next plays no part here.
        await pending.catch(() => {});
      }
    }
    logged.mockRestore();
  });
});
