import { describe, expect, it } from "vitest";
import { agentDto, boardEntryDto, broadcastDto, storedEvent } from "@/test/builders";
import { askEdges } from "./who-asked-whom";

const agents = [agentDto({ id: "sw", persona: "songwriter" }), agentDto({ id: "sp", persona: "scene-painter" }), agentDto({ id: "st", persona: "storyteller" })];

describe("askEdges", () => {
  it("counts requests, help, questions, people's messages and dialogues by who asked whom", () => {
    const request = (id: string, help?: boolean) =>
      storedEvent("board.posted", {
        entry: boardEntryDto({ id, kind: "request", agentId: "sw", targetPersona: "scene-painter", content: { targetPersona: "scene-painter", ask: "Paint", refNodeIds: [], ...(help ? { help: true } : {}) } }),
      });
    const feed = [
      request("e1"),
      request("e2"),
      request("e3", true),
      storedEvent("broadcast.asked", { broadcast: broadcastDto({ agentId: "st", mode: "agents", targetAgentIds: ["sw", "sp"] }) }),
      storedEvent("broadcast.asked", { broadcast: broadcastDto({ agentId: "sp", mode: "human", targetAgentIds: [] }) }),
      storedEvent("command.sent", { command: { id: "c", agentId: "st", senderId: "human:a", senderName: "Ada", text: "go", delivery: "new_run", runId: "r", createdAt: "2026-01-01T00:00:00.000Z" } }),
      storedEvent("dialogue.opened", { dialogue: { id: "d", askerAgentId: "st", addresseeAgentId: "sw", topic: "?", reason: "question", maxRounds: 2, reviewId: null, openedAt: "2026-01-01T00:00:00.000Z" } }),
      storedEvent("board.posted", { entry: boardEntryDto({ id: "e4", kind: "finding", agentId: "sw", content: { finding: "x", severity: "low", nodeIds: [] } }) }),
    ];
    expect(askEdges(feed, agents).map(({ from, to, kind, count }) => `${from}→${to} ${kind} ×${count}`)).toEqual([
      "sw→sp request ×2",
      "sw→sp help ×1",
      "st→sw question ×1",
      "st→sp question ×1",
      "sp→people question ×1",
      "people→st command ×1",
      "st→sw dialogue ×1",
    ]);
  });
});
