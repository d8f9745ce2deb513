import { describe, expect, it } from "vitest";
import { hasFinalOutput, spendPriced, workflowStatus } from "./read-workflow";

const quiet = {
  active: 0,
  failed: 0,
  errors: 0,
  openQuestions: 0,
  openRequests: 0,
  openParts: 0,
  finalOutput: true,
};

describe("a workflow's status", () => {
  it("is active while a run, a question, a board request or a part a template reports in it is open, whatever failed", () => {
    expect(workflowStatus(quiet)).toBe("complete");
    for (const open of ["active", "openQuestions", "openRequests", "openParts"] as const) {
      expect(workflowStatus({ ...quiet, [open]: 1 }), open).toBe("active");
      expect(workflowStatus({ ...quiet, failed: 1, [open]: 1 }), `${open} after a failure`).toBe("active");
    }
  });

  it("is failed with errors and no final output, degraded with errors and its final output, complete without errors", () => {
    expect(workflowStatus({ ...quiet, finalOutput: false, failed: 1 })).toBe("failed");
    expect(workflowStatus({ ...quiet, finalOutput: false, errors: 1 })).toBe("failed");
    expect(workflowStatus({ ...quiet, failed: 1 })).toBe("degraded");
    expect(workflowStatus({ ...quiet, errors: 1 })).toBe("degraded");
    // Stopped before it produced anything, with nothing failing: no failure.
    expect(workflowStatus({ ...quiet, finalOutput: false })).toBe("complete");
  });
});

describe("a workflow's final output", () => {
  const closed = { open: 0, finishedAt: null };
  it("is what the first template part with a say in it reports, or else the answer of the run that started it", () => {
    const succeeded = { status: "succeeded" as const };
    const failed = { status: "failed" as const };
    expect(hasFinalOutput({ firstRun: succeeded, parts: [] })).toBe(true);
    expect(hasFinalOutput({ firstRun: failed, parts: [] })).toBe(false);
    // A part with no say in it (a dialogue) leaves it to the first run.
    expect(hasFinalOutput({ firstRun: failed, parts: [closed] })).toBe(false);
    expect(hasFinalOutput({ firstRun: succeeded, parts: [closed] })).toBe(true);
    // A part that has one decides, whatever the first run did.
    expect(hasFinalOutput({ firstRun: succeeded, parts: [closed, { ...closed, finalOutput: false }] })).toBe(false);
    expect(hasFinalOutput({ firstRun: failed, parts: [{ ...closed, finalOutput: true }] })).toBe(true);
    // The first template registered with a say in it decides.
    expect(
      hasFinalOutput({
        firstRun: succeeded,
        parts: [
          { ...closed, finalOutput: false },
          { ...closed, finalOutput: true },
        ],
      }),
    ).toBe(false);
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
