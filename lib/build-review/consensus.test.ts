import { describe, expect, it } from "vitest";
import type { ReviewVerdict } from "@/db/schema";
import { isConsensus } from "./advance";

const approve = (version: number, issues: ReviewVerdict["issues"] = []): ReviewVerdict => ({
  verdict: "approve",
  issues,
  openQuestions: [],
  version,
  round: 1,
});

describe("consensus", () => {
  it("is an approval of the latest version with no blocker or major issue and no open dialogue", () => {
    expect(isConsensus(approve(2), 2, false)).toBe(true);
    expect(isConsensus(approve(2, [{ severity: "minor", text: "Name the constant." }]), 2, false)).toBe(true);
  });

  it("is not an approval that lists a major or a blocker issue", () => {
    expect(isConsensus(approve(2, [{ severity: "major", text: "Empty input is not handled." }]), 2, false)).toBe(false);
    expect(
      isConsensus(
        approve(2, [
          { severity: "minor", text: "a" },
          { severity: "blocker", text: "It does not compile." },
        ]),
        2,
        false,
      ),
    ).toBe(false);
  });

  it("is not an approval of an older version", () => {
    expect(isConsensus(approve(1), 2, false)).toBe(false);
  });

  it("is not reached while a dialogue of the review is open, on changes, or without a verdict", () => {
    expect(isConsensus(approve(2), 2, true)).toBe(false);
    expect(isConsensus({ ...approve(2), verdict: "changes" }, 2, false)).toBe(false);
    expect(isConsensus(null, 2, false)).toBe(false);
  });
});
