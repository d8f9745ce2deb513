import { describe, expect, it } from "vitest";
import { agentDto, broadcastDto, broadcastResponseDto, runDto } from "@/test/builders";
import { agentStatus } from "./agent-status";

const painter = agentDto({ id: "painter", name: "Scene Painter", persona: "scene-painter" });
const question = broadcastDto({ id: "b1", agentId: "songwriter", agentName: "Songwriter", mode: "agents", status: "pending", targetAgentIds: ["painter", "storyteller"] });

describe("agentStatus", () => {
  it("says a teammate is answering a question while its shadow works, not idle", () => {
    expect(agentStatus(painter, {}, {}, 0, { b1: question }, {})).toMatchObject({ kind: "answering", label: "answering Songwriter's question" });
  });

  it("is idle again once its answer is in, or the question closed", () => {
    const answered = { b1: [broadcastResponseDto({ broadcastId: "b1", responderId: "painter" })] };
    expect(agentStatus(painter, {}, {}, 0, { b1: question }, answered).kind).toBe("idle");
    expect(agentStatus(painter, {}, {}, 0, { b1: { ...question, status: "complete" } }, {}).kind).toBe("idle");
  });

  it("shows its own work first: a running agent is running", () => {
    const running = runDto({ id: "r1", agentId: "painter", status: "running", steps: 1 });
    expect(agentStatus(painter, { r1: running }, {}, 0, { b1: question }, {})).toMatchObject({ kind: "running", label: "running · step 2" });
  });
});
