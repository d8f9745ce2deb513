import { describe, expect, it } from "vitest";
import type { StoredEvent } from "@/lib/protocol";
import type { BrainstormDto } from "@/lib/protocol/brainstorm";
import { attemptsExplained, workflowTitle } from "./workflow-title";

const REVIEW_ID = "review-3f9a2c1b_5d41402abc4b_1763807400123_9c1e4f7a2b6d0e83";
const RUN_ID = "run-3f9a2c1b_5d41402abc4b_1763807400123_9c1e4f7a2b6d0e83";

const reviewStarted = {
  seq: 4,
  type: "review.started",
  correlation_id: REVIEW_ID,
  payload: { review: { id: "r1", task: "Word counter", maxRounds: 2 } },
} as unknown as StoredEvent;

describe("workflowTitle", () => {
  it("names a build review by its task, from the feed", () => {
    expect(workflowTitle(REVIEW_ID, { feed: [reviewStarted], brainstorm: null, agents: [] })).toBe("Build review: Word counter");
  });

  it("names a brainstorm by its problem, and a review whose start the feed no longer holds by its kind", () => {
    const brainstorm = { correlationId: RUN_ID, problem: "How might we cut onboarding time?" } as BrainstormDto;
    expect(workflowTitle(RUN_ID, { feed: [], brainstorm, agents: [] })).toBe("Brainstorm: How might we cut onboarding time?");
    expect(workflowTitle(REVIEW_ID, { feed: [], brainstorm: null, agents: [] })).toBe("Build review");
  });

  it("names an agent's own run by the agent and what it was asked, clipped", () => {
    const title = workflowTitle(RUN_ID, {
      feed: [],
      brainstorm: null,
      agents: [{ id: "songwriter", name: "Songwriter" }],
      startedBy: { agentId: "songwriter", prompt: `Write a verse about rain ${"on the window ".repeat(10)}` },
    });
    expect(title.startsWith("Songwriter: Write a verse about rain on the window")).toBe(true);
    expect(title.endsWith("…")).toBe(true);
    expect(title).not.toContain(RUN_ID);
    expect(workflowTitle(RUN_ID, { feed: [], brainstorm: null, agents: [] })).toBe("Workflow");
  });
});

describe("attemptsExplained", () => {
  it("says what the attempts beyond the runs were", () => {
    expect(attemptsExplained(2, 2)).toBe("2 attempts: one per run, none tried again");
    expect(attemptsExplained(1, 1)).toBe("1 attempt: one per run, none tried again");
    expect(attemptsExplained(1, 3)).toBe("3 attempts: 1 run, and 2 model calls tried again after a passing failure");
  });
});
