import { describe, expect, it } from "vitest";
import { spendPriced, workflowStatus } from "./read-workflow";

const quiet = { active: 0, succeeded: 1, failed: 0, errors: 0, openQuestions: 0, openDialogues: 0, openRequests: 0, openReviews: 0, openBrainstorms: 0 };

describe("a workflow's status", () => {
  it("is active while a run, a question, a dialogue, a board request, a build review or a brainstorm in it is open, whatever failed", () => {
    expect(workflowStatus(quiet)).toBe("complete");
    for (const open of ["active", "openQuestions", "openDialogues", "openRequests", "openReviews", "openBrainstorms"] as const) {
      expect(workflowStatus({ ...quiet, [open]: 1 }), open).toBe("active");
      expect(workflowStatus({ ...quiet, failed: 1, [open]: 1 }), `${open} after a failure`).toBe("active");
    }
  });

  it("is failed with errors and nothing done, degraded with errors and output", () => {
    expect(workflowStatus({ ...quiet, succeeded: 0, failed: 1 })).toBe("failed");
    expect(workflowStatus({ ...quiet, errors: 1 })).toBe("degraded");
  });
});

describe("a cost's price", () => {
  it("is unknown only for tokens a model without a price spent", () => {
    const spent = { inputTokens: 10, outputTokens: 5, costUsd: 0 };
    expect(spendPriced("openai-compatible:llama3", spent)).toBe(false);
    expect(spendPriced(undefined, spent)).toBe(false);
    expect(spendPriced("openai-compatible:llama3", { ...spent, inputTokens: 0, outputTokens: 0 })).toBe(true);
    expect(spendPriced("script:songwriter", spent)).toBe(true);
    expect(spendPriced("openai:gpt-5", { ...spent, costUsd: 0.01 })).toBe(true);
  });
});
