import { describe, expect, it } from "vitest";
import { agentDto, boardEntryDto, broadcastDto, storedEvent } from "@/test/builders";
import { type AskEdge, askEdges } from "@/lib/protocol/asks";
import { liveAskEdges } from "./who-asked-whom";

const line = ({ from, to, kind, count }: AskEdge) => `${from}→${to} ${kind} ×${count}`;

const agents = [
  agentDto({ id: "sw", persona: "songwriter" }),
  agentDto({ id: "sp", persona: "scene-painter" }),
  agentDto({ id: "st", persona: "storyteller" }),
];

describe("askEdges", () => {
  it("counts requests, help, questions, people's messages and dialogues by who asked whom", () => {
    const request = (id: string, help?: boolean) =>
      storedEvent("board.posted", {
        entry: boardEntryDto({
          id,
          kind: "request",
          agentId: "sw",
          targetPersona: "scene-painter",
          content: { targetPersona: "scene-painter", ask: "Paint", refNodeIds: [], ...(help ? { help: true } : {}) },
        }),
      });
    const feed = [
      request("e1"),
      request("e2"),
      request("e3", true),
      storedEvent("broadcast.asked", { broadcast: broadcastDto({ agentId: "st", mode: "agents", targetAgentIds: ["sw", "sp"] }) }),
      storedEvent("broadcast.asked", { broadcast: broadcastDto({ agentId: "sp", mode: "human", targetAgentIds: [] }) }),
      storedEvent("command.sent", {
        command: {
          id: "c",
          agentId: "st",
          senderId: "human:a",
          senderName: "Ada",
          text: "go",
          delivery: "new_run",
          runId: "r",
          createdAt: "2026-01-01T00:00:00.000Z",
        },
      }),
      storedEvent("dialogue.opened", {
        dialogue: {
          id: "d",
          askerAgentId: "st",
          addresseeAgentId: "sw",
          topic: "?",
          reason: "question",
          maxRounds: 2,
          reviewId: null,
          openedAt: "2026-01-01T00:00:00.000Z",
        },
      }),
      storedEvent("board.posted", {
        entry: boardEntryDto({ id: "e4", kind: "finding", agentId: "sw", content: { finding: "x", severity: "low", nodeIds: [] } }),
      }),
    ];
    expect(askEdges(feed, agents).map(line)).toEqual([
      "sw→sp request ×2",
      "sw→sp help ×1",
      "st→sw question ×1",
      "st→sp question ×1",
      "sp→people question ×1",
      "people→st command ×1",
      "st→sw dialogue ×1",
    ]);
  });

  it("draws no arrow for an agent asking itself or a persona nobody in the room has", () => {
    const request = (target: string) =>
      storedEvent("board.posted", {
        entry: boardEntryDto({
          id: target,
          kind: "request",
          agentId: "sw",
          targetPersona: target,
          content: { targetPersona: target, ask: "Paint", refNodeIds: [] },
        }),
      });
    expect(askEdges([request("songwriter"), request("gardener")], agents)).toEqual([]);
  });
});

describe("liveAskEdges", () => {
  const question = (seq: number, from: string, to: string) =>
    storedEvent("broadcast.asked", { broadcast: broadcastDto({ agentId: from, mode: "agents", targetAgentIds: [to] }) }, { seq });
  const counted = { through: 500, edges: [{ from: "st", to: "sw", kind: "question" as const, count: 40 }] };

  it("adds what arrived after the server's count to it, and nothing it already counted", () => {
    // The page's feed keeps only the newest events: 41 questions were asked, 2 of them since the count.
    const feed = [question(499, "st", "sw"), question(500, "st", "sw"), question(501, "st", "sw"), question(502, "sw", "sp")];
    const { edges, stale } = liveAskEdges(counted, feed, agents);
    expect(edges.map(line)).toEqual(["st→sw question ×41", "sw→sp question ×1"]);
    expect(stale).toBe(false);
    // Until the count arrives, the feed's own.
    expect(liveAskEdges(null, feed, agents).edges.map(line)).toEqual(["st→sw question ×3", "sw→sp question ×1"]);
  });

  it("is stale once the feed has dropped events the count does not hold", () => {
    const { edges, stale } = liveAskEdges(counted, [question(620, "st", "sw")], agents);
    expect(stale).toBe(true);
    expect(edges.map(line)).toEqual(["st→sw question ×41"]);
    expect(liveAskEdges(counted, [question(501, "st", "sw")], agents).stale).toBe(false);
    expect(liveAskEdges(counted, [], agents).stale).toBe(false);
  });
});
