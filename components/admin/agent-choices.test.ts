import { describe, expect, it } from "vitest";
import type { AdminAgentMatch } from "@/lib/admin/find-agents";
import { agentChoices } from "./agent-choices";

const agent = (id: string, name: string, roomTitle: string): AdminAgentMatch => ({
  id,
  name,
  persona: name.toLowerCase(),
  color: "#000",
  model: "script:any",
  roomId: `room-${roomTitle}`,
  roomTitle,
});

describe("the agent picker's choices", () => {
  const matches = [agent("sw-1", "Songwriter", "Rain"), agent("sw-2", "songwriter", "Snow"), agent("st-1", "Storyteller", "Rain")];

  it("offer a name found in several rooms once, as every room's, before each agent in its room", () => {
    expect(agentChoices(matches, false).map((choice) => [choice.value, choice.label])).toEqual([
      ["Songwriter", "Songwriter (every room)"],
      ["sw-1", "Songwriter in Rain"],
      ["sw-2", "songwriter in Snow"],
      ["st-1", "Storyteller in Rain"],
    ]);
  });

  it("offer only the agents themselves among one room's", () => {
    expect(agentChoices(matches.slice(0, 1), true)).toEqual([{ value: "sw-1", label: "Songwriter", detail: "script:any" }]);
  });
});
