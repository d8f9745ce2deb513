import { describe, expect, it } from "vitest";
import { activeRun, unusedDatabase } from "@/test/active-run";
import { agentRow, runRow } from "@/test/builders";
import { createBroadcastTools } from "./broadcast-tools";

describe("the broadcast tools", () => {
  it("offer ask_others, naming whom it reaches, and no longer the retired respond_to_broadcast", async () => {
    const agent = agentRow({ id: "a", name: "Songwriter" });
    const tools = createBroadcastTools(
      activeRun(unusedDatabase(), {
        run: runRow({ agentId: agent.id }),
        agent,
        team: [agent, agentRow({ id: "b", persona: "scene-painter", name: "Scene Painter" })],
        settings: { broadcast: "agents" },
      }),
    );
    expect(Object.keys(tools)).toEqual(["ask_others"]);
    expect(tools.ask_others.description).toMatch(/Scene Painter/);
  });
});
