import { describe, expect, it } from "vitest";
import { IDEA_MOVES, clusterNamed, clustersFor, ideaAbout } from "./content";
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

const PROBLEMS = [
  "Reduce food waste in our office cafeteria",
  "How might we cut onboarding time for new engineers?",
  "Our nightly CI builds take three hours",
  "Get more people to cycle to work",
  "Make our weekly meetings shorter",
  "How can we keep volunteers coming back to the community garden?",
  "Too many support tickets about password resets",
  "Help students finish their homework on time",
  "Lower the energy bill of our school building",
  "How might we get more visitors to the town library?",
];

describe("the offline brainstorm's ideas", () => {
  it("depend on the problem: over ten problems no title is shared, and every idea names something from its problem", () => {
    const owner = new Map<string, string>();
    for (const problem of PROBLEMS) {
      const words = readProblem(problem);
      const problemWords = problem
        .toLowerCase()
        .split(/[^a-z0-9-]+/)
        .filter((word) => word.length > 2);
      for (const move of Object.values(IDEA_MOVES).flat()) {
        const idea = ideaAbout(move, words);
        const title = idea.title.toLowerCase();
        expect(owner.get(title) ?? problem, `"${idea.title}" for two problems`).toBe(problem);
        owner.set(title, problem);
        expect(
          problemWords.some((word) => title.includes(word)),
          `${idea.title} (${problem})`,
        ).toBe(true);
      }
    }
    expect(owner.size).toBe(PROBLEMS.length * Object.values(IDEA_MOVES).flat().length);
  });
});
