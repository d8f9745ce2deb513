import { describe, expect, it } from "vitest";
import { activeRun, unusedDatabase } from "@/test/active-run";
import { agentRow, runRow } from "@/test/builders";
import { createBroadcastTools } from "./broadcast-tools";

describe("respond_to_broadcast", () => {
  it("only tells the caller that its shadow answers for it", async () => {
    const agent = agentRow({ id: "a", name: "Songwriter" });
    const tools = createBroadcastTools(
      activeRun(unusedDatabase(), {
        run: runRow({ agentId: agent.id }),
        agent,
        team: [agent, agentRow({ id: "b", persona: "scene-painter", name: "Scene Painter" })],
        settings: { broadcast: "agents" },
      }),
    );
    const result = await tools.respond_to_broadcast.execute!({ answer: "Yes" }, { toolCallId: "t", messages: [], context: {} });
    expect(result).toEqual({
      ok: true,
      message: "Broadcast responses are handled automatically by your shadow agent; there is nothing to answer. Continue your work.",
    });
    expect(tools.ask_others.description).toMatch(/Scene Painter/);
  });
});
