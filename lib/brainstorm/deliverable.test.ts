import { describe, expect, it } from "vitest";
import { composeDeliverable, missingSections } from "./deliverable";
import { mergeWork } from "./work";

describe("the deliverable", () => {
  it("names the sections a markdown deliverable lacks, whatever their level or case", () => {
    expect(missingSections("# T\n## Recommendation\n### reasons why\n## Steps\n## RISKS\n")).toEqual(["Alternatives"]);
    expect(missingSections("Recommendation: do it")).toEqual(["Recommendation", "Reasons", "Steps", "Risks", "Alternatives"]);
  });

  it("is assembled from the artifacts, with every section, when the Narrator submitted none", () => {
    const markdown = composeDeliverable({ problem: "Cut onboarding time", chosenCandidateId: null, decisions: [] }, mergeWork([]));
    expect(missingSections(markdown)).toEqual([]);
    expect(markdown).toContain("Assembled by Parley");
    expect(markdown).toContain("No candidate was approved.");
  });
});
