import { z } from "zod";

/**
 * The brainstorm's process: nine stages and the participants' gate between prioritization and
 * review (docs/behaviour/brainstorm.md). Shared by the server (which runs it) and the page
 * (which shows it), so both name the stages the same way.
 */
export const STAGE_KEYS = [
  "framing",
  "divergent",
  "precedents",
  "convergent",
  "fact_check",
  "pushback",
  "prioritization",
  "gate",
  "review",
  "presentation",
] as const;
export type StageKey = (typeof STAGE_KEYS)[number];
export const stageKeySchema = z.enum(STAGE_KEYS);

export const stageStatusSchema = z.enum(["pending", "running", "awaiting", "done", "short", "skipped"]);

/** What a stage's artifact must hold to be complete. */
interface StageExpectation {
  unit: string;
  min?: number;
  max?: number;
  /** The least each of the stage's agents must contribute. */
  perAgent?: number;
  /** The most each of the stage's agents may contribute, over all the stage's passes. */
  perAgentMax?: number;
  /** The count is measured against the candidates in play (every one must be covered). */
  everyCandidate?: boolean;
}

export interface StageDefinition {
  key: StageKey;
  /** Its number in the process (0–8); the gate has none. */
  number: number | null;
  name: string;
  /** The goal as the page shows it. */
  goal: string;
  /**
   * The goal as the stage's agents read it when they work alone (their task, their lane's
   * heading): their own share, so it says nothing of the others or of the stage's total.
   */
  goalAlone?: string;
  /** Who works in it, by persona key, in the order they work when `order` is sequential. */
  personas: string[];
  order: "sequential" | "parallel";
  /** Its agents see only the framing and their own work while it runs. */
  isolated?: boolean;
  expect?: StageExpectation;
}

export const BRAINSTORM_STAGES: readonly StageDefinition[] = [
  {
    key: "framing",
    number: 0,
    name: "Problem framing",
    goal: "Map the problem: what is in and out of scope, the constraints, 3–5 success criteria and 3 key questions.",
    personas: ["cartographer", "questioner"],
    order: "sequential",
  },
  {
    key: "divergent",
    number: 1,
    name: "Divergent thinking",
    goal: "Generate many different ideas, alone: 20–60 in all, at least 5 from each ideator.",
    goalAlone: "Generate many different ideas, alone: at least 5 and at most 15 of your own.",
    personas: ["wild-ideator", "cross-pollinator", "first-principles-thinker", "contrarian"],
    order: "parallel",
    isolated: true,
    expect: { unit: "ideas", min: 20, max: 60, perAgent: 5, perAgentMax: 15 },
  },
  {
    key: "precedents",
    number: 2,
    name: "Precedent research",
    goal: "Find at least 5 precedents: who tried something like this, what happened, and the lesson.",
    personas: ["historian", "analogist"],
    order: "parallel",
    expect: { unit: "precedents", min: 5 },
  },
  {
    key: "convergent",
    number: 3,
    name: "Convergent thinking",
    goal: "Synthesize the ideas into 5–8 candidates: clusters of ideas, and combinations of them.",
    personas: ["synthesizer", "connector"],
    order: "sequential",
    expect: { unit: "candidates", min: 5, max: 8 },
  },
  {
    key: "fact_check",
    number: 4,
    name: "Fact checking",
    goal: "Check every candidate: pass, flag or fatal, with its assumptions rated.",
    personas: ["skeptic", "feasibility-analyst"],
    order: "parallel",
    expect: { unit: "candidates checked", everyCandidate: true },
  },
  {
    key: "pushback",
    number: 5,
    name: "Pushback",
    goal: "Argue against every candidate: strong, weakened or killed (killed only if both say so).",
    personas: ["devils-advocate", "pragmatist"],
    order: "parallel",
    expect: { unit: "candidates challenged", everyCandidate: true },
  },
  {
    key: "prioritization",
    number: 6,
    name: "Prioritization",
    goal: "Score every surviving candidate 1–10 on five weighted criteria and rank them.",
    personas: ["strategist"],
    order: "sequential",
    expect: { unit: "candidates scored", everyCandidate: true },
  },
  {
    key: "gate",
    number: null,
    name: "Approval",
    goal: "The people in the room approve the shortlist, drop a candidate, redirect the ranking or deepen one.",
    personas: [],
    order: "sequential",
  },
  {
    key: "review",
    number: 7,
    name: "Review",
    goal: "Turn the chosen candidate into a proposal: core concept, 4–6 steps, 2 risks with mitigations, a first action.",
    personas: ["architect"],
    order: "sequential",
  },
  {
    key: "presentation",
    number: 8,
    name: "Presentation",
    goal: "Write the final deliverable in markdown: recommendation, reasons, steps, risks, alternatives.",
    personas: ["narrator"],
    order: "sequential",
  },
];

export function stageDefinition(key: StageKey): StageDefinition {
  return BRAINSTORM_STAGES.find((stage) => stage.key === key)!;
}

/** Stages that run side by side; the process moves to the next group when all of one have ended. */
export const BRAINSTORM_PHASES: readonly (readonly StageKey[])[] = [
  ["framing"],
  ["divergent", "precedents"],
  ["convergent"],
  ["fact_check", "pushback"],
  ["prioritization"],
  ["gate"],
  ["review"],
  ["presentation"],
];

/** The five criteria the Strategist scores, and their weights (they sum to 1). */
export const RANKING_CRITERIA = [
  { key: "impact", name: "Impact", weight: 0.3 },
  { key: "feasibility", name: "Feasibility", weight: 0.25 },
  { key: "cost", name: "Low cost", weight: 0.15 },
  { key: "speed", name: "Speed to value", weight: 0.15 },
  { key: "risk", name: "Low risk", weight: 0.15 },
] as const;

const line = (max: number) => z.string().trim().min(1).max(max);
const candidateIdSchema = z.string().trim().min(1).max(16).describe("The candidate's id, e.g. C2");

// What agents submit, stage by stage (each is a tool's input; zod checks it).

export const framingSubmissionSchema = z.strictObject({
  scopeIn: z.array(line(200)).max(8).optional().describe("What the problem includes"),
  scopeOut: z.array(line(200)).max(8).optional().describe("What it deliberately leaves out"),
  constraints: z.array(line(200)).max(8).optional().describe("Limits any answer must respect"),
  successCriteria: z.array(line(200)).min(3).max(5).optional().describe("3–5 ways to tell the problem is solved"),
  keyQuestions: z.array(line(200)).length(3).optional().describe("Exactly 3 questions the brainstorm must answer"),
});
export type FramingSubmission = z.infer<typeof framingSubmissionSchema>;

const ideaSchema = z.strictObject({
  title: line(80).describe("A few words naming the idea"),
  oneLiner: line(240).describe("The idea in one sentence"),
});
export const ideasSubmissionSchema = z.strictObject({
  ideas: z.array(ideaSchema).min(1).max(15).describe("Your ideas (up to 15 in a call)"),
});

const precedentSchema = z.strictObject({
  name: line(100).describe("What it was called, or who did it"),
  domain: line(80).describe("The field it comes from"),
  tried: line(300).describe("What was tried"),
  outcome: line(300).describe("What happened"),
  lesson: line(300).describe("What this brainstorm should learn from it"),
});
export const precedentsSubmissionSchema = z.strictObject({
  precedents: z.array(precedentSchema).min(1).max(10),
});

const candidateSchema = z.strictObject({
  title: line(100),
  cluster: line(80).describe("The theme the candidate's ideas share"),
  summary: line(400).describe("What the candidate proposes, in two sentences at most"),
  sourceIdeas: z.array(z.string().trim().min(1).max(16)).min(1).max(12).describe("Ids of the ideas it builds on, e.g. WI-2"),
  precedents: z.array(z.string().trim().min(1).max(16)).max(5).optional().describe("Ids of the precedents it draws on, if any, e.g. P3"),
  combination: z.boolean().describe("True when it combines ideas from different clusters"),
});
export const candidatesSubmissionSchema = z.strictObject({
  candidates: z.array(candidateSchema).min(1).max(8),
});

const factCheckSchema = z.strictObject({
  candidateId: candidateIdSchema,
  rating: z.enum(["pass", "flag", "fatal"]).describe("pass: sound; flag: needs care; fatal: cannot work as stated"),
  assumptions: z
    .array(z.strictObject({ text: line(200), rating: z.enum(["solid", "shaky", "unfounded"]) }))
    .min(1)
    .max(5),
  note: line(300),
});
export const factChecksSubmissionSchema = z.strictObject({
  checks: z.array(factCheckSchema).min(1).max(8),
});

const pushbackSchema = z.strictObject({
  candidateId: candidateIdSchema,
  verdict: z.enum(["strong", "weakened", "killed"]),
  argument: line(400),
});
export const pushbackSubmissionSchema = z.strictObject({
  verdicts: z.array(pushbackSchema).min(1).max(8),
});

const score = z.number().int().min(1).max(10);
const scoreSchema = z.strictObject({
  candidateId: candidateIdSchema,
  impact: score,
  feasibility: score,
  cost: score.describe("10 = cheapest"),
  speed: score.describe("10 = fastest to show value"),
  risk: score.describe("10 = safest"),
  rationale: line(300),
});
export const rankingSubmissionSchema = z.strictObject({
  scores: z.array(scoreSchema).min(1).max(8),
});

export const proposalSubmissionSchema = z.strictObject({
  coreConcept: line(600),
  steps: z.array(line(300)).min(4).max(6).describe("4–6 steps, in order"),
  risks: z
    .array(z.strictObject({ risk: line(300), mitigation: line(300) }))
    .length(2)
    .describe("Exactly 2 risks, each with its mitigation"),
  firstAction: line(300).describe("What to do first, this week"),
});
export type ProposalSubmission = z.infer<typeof proposalSubmissionSchema>;

/** The headings the deliverable must have, in any order (checked case-insensitively). */
export const DELIVERABLE_SECTIONS = ["Recommendation", "Reasons", "Steps", "Risks", "Alternatives"] as const;

export const presentationSubmissionSchema = z.strictObject({
  markdown: z
    .string()
    .trim()
    .min(200)
    .max(20_000)
    .describe(`The deliverable in markdown, with the sections ${DELIVERABLE_SECTIONS.map((name) => `## ${name}`).join(", ")}`),
});

// What the page is shown.

const stageStateSchema = z.object({
  status: stageStatusSchema,
  /** Times the stage was entered (a return to divergent thinking, a redirect or a deepen enter it again). */
  passes: z.number().int().nonnegative(),
  /** It was run again once in this pass because its artifact fell short. */
  rerun: z.boolean(),
  startedAt: z.string().nullable(),
  endedAt: z.string().nullable(),
  /** What its artifact holds, counted in the stage's unit. */
  count: z.number().int().nonnegative().nullable(),
  /**
   * What `count` is out of, in a stage that must cover every candidate: the candidates its pass
   * covers (one, when a candidate is deepened) or, for prioritization, those still in play.
   */
  total: z.number().int().nonnegative().nullable().optional(),
  /** What was missing when it ended short or was run again. */
  shortfall: z.string().nullable(),
  timedOut: z.boolean(),
});
export type StageStateDto = z.infer<typeof stageStateSchema>;

export const rankedCandidateSchema = z.object({
  id: z.string(),
  title: z.string(),
  summary: z.string(),
  score: z.number(),
  /** From fact checking and pushback. */
  standing: z.string(),
});
export type RankedCandidateDto = z.infer<typeof rankedCandidateSchema>;

export const gateDecisionSchema = z.object({
  round: z.number().int().positive(),
  action: z.enum(["approve", "drop", "redirect", "deepen"]),
  candidateId: z.string().nullable(),
  comment: z.string().nullable(),
  byId: z.string(),
  byName: z.string(),
  at: z.string(),
});
export type GateDecisionDto = z.infer<typeof gateDecisionSchema>;

export const brainstormSchema = z.object({
  id: z.string(),
  problem: z.string(),
  correlationId: z.string(),
  status: z.enum(["running", "awaiting_gate", "complete", "cancelled"]),
  stages: z.record(stageKeySchema, stageStateSchema),
  /** The gate's round: each opening of the gate is one (a drop re-ranks and opens the next). */
  gateRound: z.number().int().nonnegative(),
  gateOpenedAt: z.string().nullable(),
  /** The ranked shortlist the gate decides on. */
  ranking: z.array(rankedCandidateSchema),
  decisions: z.array(gateDecisionSchema),
  chosenCandidateId: z.string().nullable(),
  /** Who may decide at the gate. */
  gateDeciders: z.enum(["participants", "admins"]),
  hasDeliverable: z.boolean(),
  createdAt: z.string(),
  finishedAt: z.string().nullable(),
});
export type BrainstormDto = z.infer<typeof brainstormSchema>;
