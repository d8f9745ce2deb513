import { describe, expect, it } from "vitest";
import { clusterNamed, clustersFor } from "./content";
import { readProblem } from "./problem";

const WASTE = readProblem("Reduce food waste in our office cafeteria");
const ONBOARDING = readProblem("How might we cut onboarding time for new engineers?");

describe("the offline brainstorm's clusters", () => {
  it("fit each problem by the words it suits, named in its words, the same every time", () => {
    expect(clustersFor(WASTE)[0]).toMatchObject({ kind: "visible", label: "Food waste made visible" });
    expect(clustersFor(ONBOARDING)[0]).toMatchObject({ kind: "wait", label: "Nothing waits in onboarding" });
    expect(clustersFor(WASTE)).toEqual(clustersFor(readProblem("Reduce food waste in our office cafeteria")));
    for (const cluster of clustersFor(WASTE)) expect(cluster.label).toMatch(/food waste|cafeteria/i);
  });

  it("give the best fit the most impact, and score two problems differently", () => {
    const impacts = clustersFor(WASTE).map((cluster) => cluster.weighed[0]);
    expect(impacts).toEqual([...impacts].sort((a, b) => b - a));
    const byKind = (words: typeof WASTE) => Object.fromEntries(clustersFor(words).map((cluster) => [cluster.kind, cluster.weighed]));
    expect(byKind(WASTE)).not.toEqual(byKind(ONBOARDING));
  });

  it("finds a candidate's cluster by the name the problem gives it, and no other problem's", () => {
    expect(clusterNamed("Food waste made visible", WASTE)?.kind).toBe("visible");
    expect(clusterNamed("Onboarding made visible", WASTE)).toBeNull();
    expect(clusterNamed("Combination", WASTE)).toBeNull();
  });
});
