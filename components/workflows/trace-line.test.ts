import { describe, expect, it } from "vitest";
import { storedEvent } from "@/test/builders";
import { traceLine } from "./trace-line";

const context = { agents: [], nodeText: () => undefined };

describe("traceLine", () => {
  it("shows a person's answer to a question with its text", () => {
    const answer = storedEvent(
      "broadcast.response",
      {
        response: {
          id: "r1",
          broadcastId: "b1",
          responderId: "human:s1",
          responderName: "Tess",
          isHuman: true,
          content: "Make the chorus quieter, like rain on glass.",
          durationMs: 4000,
          inputTokens: 0,
          outputTokens: 0,
          costUsd: 0,
          createdAt: "2030-01-01T00:00:00.000Z",
        },
      },
      { agent: "human:s1", agent_name: "Tess" },
    );
    expect(traceLine(answer, context)).toBe("answered “Make the chorus quieter, like rain on glass.”");
  });

  it("says how a question closed and what a dialogue's line said, where the feed leaves both to a thread", () => {
    const closed = storedEvent("broadcast.closed", {
      broadcastId: "b1",
      status: "timeout",
      responses: 1,
      durationMs: 60_000,
      closedAt: "2030-01-01T00:01:00.000Z",
    });
    expect(traceLine(closed, context)).toBe("closed the question: the time to answer ran out (1 answer)");
    const said = storedEvent("dialogue.message", {
      dialogueId: "d1",
      round: 1,
      fromAgentId: "reviewer",
      toAgentId: "coder",
      text: "Why split on spaces only?",
      runId: "run1",
      durationMs: 1200,
      inputTokens: 10,
      outputTokens: 5,
      costUsd: 0,
      costKnown: true,
    });
    expect(traceLine(said, context)).toBe("said “Why split on spaces only?”");
  });
});
