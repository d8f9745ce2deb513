import { describe, expect, it } from "vitest";
import type { BrainstormArtifact } from "@/db/schema";
import {
  candidatesOfPass,
  measureStage,
  mergeWork,
  rankCandidates,
  scoredInPass,
  standingOf,
  survivingCandidates,
  weightedTotal,
} from "./work";

let sequence = 0;
function artifact(
  stage: BrainstormArtifact["stage"],
  agent: string,
  content: Record<string, unknown>,
  pass = 1,
  nodeIds: string[] = [],
): BrainstormArtifact {
  sequence += 1;
  return {
    id: `a${sequence}`,
    brainstormId: "b",
    roomId: "r",
    stage,
    pass,
    agentId: agent,
    agentName: agent.toUpperCase(),
    runId: `run${sequence}`,
    content,
    nodeIds,
    createdAt: new Date(Date.UTC(2026, 0, 1, 0, 0, sequence)),
  };
}

const candidate = (id: string) => ({
  id,
  title: `Title ${id}`,
  cluster: "Cluster",
  summary: "Summary",
  sourceIdeas: ["WI-1"],
  combination: false,
});
const check = (candidateId: string, rating: string) => ({
  candidateId,
  rating,
  assumptions: [{ text: "It holds", rating: "solid" }],
  note: "Note",
});
const verdict = (candidateId: string, value: string) => ({ candidateId, verdict: value, argument: "Because" });
const score = (candidateId: string, all: number) => ({
  candidateId,
  impact: all,
  feasibility: all,
  cost: all,
  speed: all,
  risk: all,
  rationale: "Why",
});

describe("mergeWork", () => {
  it("keeps every pass's ideas, only the latest pass's candidates and scores, and each agent's latest check", () => {
    const work = mergeWork([
      artifact("divergent", "wi", { ideas: [{ id: "WI-1", title: "A", oneLiner: "a" }] }, 1, ["n1"]),
      artifact("divergent", "wi", { ideas: [{ id: "WI-2", title: "B", oneLiner: "b" }] }, 2, ["n2"]),
      artifact("convergent", "syn", { candidates: [candidate("C1"), candidate("C2")] }, 1),
      artifact("convergent", "syn", { candidates: [candidate("C3")] }, 2),
      artifact("fact_check", "sk", { checks: [check("C3", "flag")] }, 1),
      artifact("fact_check", "sk", { checks: [check("C3", "pass")] }, 2),
      artifact("prioritization", "st", { scores: [score("C3", 4)] }, 1),
      artifact("prioritization", "st", { scores: [score("C3", 8)] }, 2),
    ]);
    expect(work.ideas.map((idea) => [idea.id, idea.pass, idea.nodeId])).toEqual([
      ["WI-1", 1, "n1"],
      ["WI-2", 2, "n2"],
    ]);
    expect(work.candidates.map((each) => each.id)).toEqual(["C3"]);
    expect(work.checks).toEqual([expect.objectContaining({ candidateId: "C3", rating: "pass", agentId: "sk" })]);
    expect(work.scores).toEqual([expect.objectContaining({ candidateId: "C3", total: 8 })]);
  });

  it("takes each framing field from the latest submission that has it", () => {
    const work = mergeWork([
      artifact("framing", "car", { scopeIn: ["old"], constraints: ["c"] }),
      artifact("framing", "car", { scopeIn: ["new"] }),
      artifact("framing", "que", { keyQuestions: ["q1", "q2", "q3"] }),
    ]);
    expect(work.framing).toMatchObject({ scopeIn: ["new"], constraints: ["c"], keyQuestions: ["q1", "q2", "q3"], scopeOut: [] });
  });
});

describe("standings and ranking", () => {
  const work = mergeWork([
    artifact("convergent", "syn", { candidates: ["C1", "C2", "C3", "C4"].map(candidate) }),
    artifact("fact_check", "sk", { checks: [check("C1", "fatal"), check("C2", "fatal"), check("C3", "flag"), check("C4", "pass")] }),
    artifact("fact_check", "fe", { checks: [check("C1", "fatal"), check("C2", "pass"), check("C3", "pass"), check("C4", "pass")] }),
    artifact("pushback", "da", { verdicts: [verdict("C3", "killed"), verdict("C4", "killed"), verdict("C2", "weakened")] }),
    artifact("pushback", "pr", { verdicts: [verdict("C3", "strong"), verdict("C4", "killed"), verdict("C2", "strong")] }),
    artifact("prioritization", "st", { scores: [score("C2", 5), score("C3", 9)] }),
  ]);

  it("rules a candidate out only when both checkers call it fatal, or both challengers kill it", () => {
    expect(standingOf(work, "C1")).toEqual({ out: true, label: "fatal" });
    expect(standingOf(work, "C2")).toEqual({ out: false, label: "flagged · weakened" });
    expect(standingOf(work, "C3")).toEqual({ out: false, label: "flagged · weakened" });
    expect(standingOf(work, "C4")).toEqual({ out: true, label: "killed" });
    expect(survivingCandidates(work).map((each) => each.id)).toEqual(["C2", "C3"]);
  });

  it("ranks the scored survivors best first, leaving out those the gate dropped", () => {
    expect(rankCandidates(work, new Set()).map((each) => [each.id, each.score])).toEqual([
      ["C3", 9],
      ["C2", 5],
    ]);
    expect(rankCandidates(work, new Set(["C3"])).map((each) => each.id)).toEqual(["C2"]);
  });

  it("weighs the five criteria 30/25/15/15/15", () => {
    expect(weightedTotal({ impact: 10, feasibility: 0, cost: 0, speed: 0, risk: 0 })).toBe(3);
    expect(weightedTotal({ impact: 0, feasibility: 10, cost: 0, speed: 0, risk: 0 })).toBe(2.5);
    expect(weightedTotal({ impact: 7, feasibility: 7, cost: 7, speed: 7, risk: 7 })).toBe(7);
  });
});

describe("measureStage", () => {
  const team = [
    { id: "wi", name: "Wild Ideator", persona: "wild-ideator" },
    { id: "co", name: "Contrarian", persona: "contrarian" },
  ];
  const ideas = (agent: string, count: number) =>
    artifact("divergent", agent, {
      ideas: Array.from({ length: count }, (_, index) => ({ id: `${agent}-${index}`, title: "t", oneLiner: "o" })),
    });

  it("names each ideator short of five ideas, and the total short of twenty, for the page", () => {
    const measure = measureStage("divergent", mergeWork([ideas("wi", 12), ideas("co", 3)]), { pass: 1, team, inPlay: [] });
    expect(measure).toMatchObject({
      count: 15,
      shortfall: "Contrarian has 3 ideas of at least 5; 15 ideas in all, of at least 20.",
      shortAgents: ["co"],
    });
    expect(measureStage("divergent", mergeWork([ideas("wi", 12), ideas("co", 8)]), { pass: 1, team, inPlay: [] })).toMatchObject({
      shortfall: null,
      ownShortfalls: {},
    });
  });

  it("tells each ideator of its own ideas only: no other ideator's name, no total", () => {
    const short = [
      { id: "wi", name: "Wild Ideator", persona: "wild-ideator" },
      { id: "cp", name: "Cross-Pollinator", persona: "cross-pollinator" },
      { id: "co", name: "Contrarian", persona: "contrarian" },
    ];
    const measure = measureStage("divergent", mergeWork([ideas("wi", 3), ideas("cp", 1), ideas("co", 7)]), {
      pass: 1,
      team: short,
      inPlay: [],
    });
    expect(measure.shortAgents).toEqual(["wi", "cp"]);
    expect(measure.ownShortfalls).toEqual({
      wi: "you have 3 ideas of at least 5.",
      cp: "you have 1 idea of at least 5.",
      co: "you have 7 ideas; add new ones, up to 15 in all.",
    });
    for (const told of Object.values(measure.ownShortfalls!))
      expect(told).not.toMatch(/Wild Ideator|Cross-Pollinator|Contrarian|\b11\b|\b20\b/);
  });

  it("counts a candidate as covered only when every agent of the stage covered it", () => {
    const checkers = [
      { id: "sk", name: "Skeptic", persona: "skeptic" },
      { id: "fe", name: "Feasibility Analyst", persona: "feasibility-analyst" },
    ];
    const work = mergeWork([
      artifact("fact_check", "sk", { checks: [check("C1", "pass"), check("C2", "pass")] }),
      artifact("fact_check", "fe", { checks: [check("C1", "pass")] }),
    ]);
    expect(measureStage("fact_check", work, { pass: 1, team: checkers, inPlay: ["C1", "C2"] })).toEqual({
      count: 1,
      shortfall: "Feasibility Analyst has not covered C2.",
      shortAgents: ["fe"],
    });
  });

  it("counts the candidates of convergent thinking's pass under way, none of an earlier pass's", () => {
    const synthesizers = [{ id: "syn", name: "Synthesizer", persona: "synthesizer" }];
    const firstPass = artifact("convergent", "syn", { candidates: [candidate("C1"), candidate("C2")] }, 1);
    const measure = (rows: BrainstormArtifact[], pass: number) =>
      measureStage("convergent", mergeWork(rows), { pass, team: synthesizers, inPlay: [] });
    expect(measure([firstPass], 1)).toMatchObject({ count: 2, shortfall: "2 candidates of 5–8." });
    // Back from divergent thinking, the second pass has found nothing yet: the first pass's two are not its own.
    expect(candidatesOfPass(mergeWork([firstPass]), 2)).toEqual([]);
    expect(measure([firstPass], 2)).toMatchObject({ count: 0, shortfall: "0 candidates of 5–8." });
    const secondPass = [
      firstPass,
      artifact("convergent", "syn", { candidates: ["C3", "C4", "C5"].map(candidate) }, 2),
      artifact("convergent", "syn", { candidates: ["C6", "C7"].map(candidate) }, 2),
    ];
    expect(candidatesOfPass(mergeWork(secondPass), 2).map((each) => each.id)).toEqual(["C3", "C4", "C5", "C6", "C7"]);
    expect(measure(secondPass, 2)).toMatchObject({ count: 5, shortfall: null });
  });

  it("counts only the checks of the pass under way: a deepened candidate checked before is not covered until checked again", () => {
    const checkers = [
      { id: "sk", name: "Skeptic", persona: "skeptic" },
      { id: "fe", name: "Feasibility Analyst", persona: "feasibility-analyst" },
    ];
    const firstPass = [
      artifact("fact_check", "sk", { checks: [check("C1", "pass"), check("C2", "flag")] }, 1),
      artifact("fact_check", "fe", { checks: [check("C1", "pass"), check("C2", "pass")] }, 1),
    ];
    // Deepened on C2: both checked it in the first pass, neither has in the second.
    expect(measureStage("fact_check", mergeWork(firstPass), { pass: 2, team: checkers, inPlay: ["C2"] })).toEqual({
      count: 0,
      shortfall: "Skeptic has not covered C2; Feasibility Analyst has not covered C2.",
      shortAgents: ["sk", "fe"],
    });
    const oneChecked = mergeWork([...firstPass, artifact("fact_check", "sk", { checks: [check("C2", "fatal")] }, 2)]);
    expect(measureStage("fact_check", oneChecked, { pass: 2, team: checkers, inPlay: ["C2"] })).toMatchObject({
      count: 0,
      shortAgents: ["fe"],
    });
    // The earlier checks still stand for the candidate's standing: one fatal voice flags it.
    expect(standingOf(oneChecked, "C2")).toEqual({ out: false, label: "flagged" });
    const bothChecked = mergeWork([
      ...firstPass,
      ...["sk", "fe"].map((agent) => artifact("fact_check", agent, { checks: [check("C2", "pass")] }, 2)),
    ]);
    expect(measureStage("fact_check", bothChecked, { pass: 2, team: checkers, inPlay: ["C2"] })).toMatchObject({
      count: 1,
      shortfall: null,
    });
  });

  it("counts the candidates scored in the pass under way, over every call of it, and none scored only in an earlier pass", () => {
    const strategist = [{ id: "st", name: "Strategist", persona: "strategist" }];
    const inPlay = ["C1", "C2", "C3"];
    // Two calls, the second scoring C2 again: three candidates scored, not the second call's two.
    const twoCalls = mergeWork([
      artifact("prioritization", "st", { scores: [score("C1", 5), score("C2", 6)] }),
      artifact("prioritization", "st", { scores: [score("C2", 7), score("C3", 8)] }),
    ]);
    expect(scoredInPass(twoCalls, 1)).toEqual(new Set(["C1", "C2", "C3"]));
    expect(measureStage("prioritization", twoCalls, { pass: 1, team: strategist, inPlay })).toMatchObject({ count: 3, shortfall: null });
    // Prioritization entered again (a redirect): the first pass's scores are not this pass's.
    expect(scoredInPass(twoCalls, 2)).toEqual(new Set());
    expect(measureStage("prioritization", twoCalls, { pass: 2, team: strategist, inPlay })).toMatchObject({
      count: 0,
      shortfall: "Not scored: C1, C2, C3.",
    });
    const redirected = mergeWork(
      [1, 2].map((pass) => artifact("prioritization", "st", { scores: [score("C1", 5), score("C2", 6)] }, pass)),
    );
    expect(measureStage("prioritization", redirected, { pass: 2, team: strategist, inPlay })).toMatchObject({
      count: 2,
      shortfall: "Not scored: C3.",
    });
  });

  it("says which parts of the framing are missing, and whose they are", () => {
    const framers = [
      { id: "car", name: "Cartographer", persona: "cartographer" },
      { id: "que", name: "Questioner", persona: "questioner" },
    ];
    const work = mergeWork([
      artifact("framing", "car", { scopeIn: ["a"], scopeOut: ["b"], constraints: ["c"] }),
      artifact("framing", "que", { successCriteria: ["1", "2"] }),
    ]);
    expect(measureStage("framing", work, { pass: 1, team: framers, inPlay: [] })).toEqual({
      count: null,
      shortfall: "Missing: 3–5 success criteria, 3 key questions.",
      shortAgents: ["que"],
    });
  });
});
