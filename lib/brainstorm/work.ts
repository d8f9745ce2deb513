import { asc, eq } from "drizzle-orm";
import type { DbOrTx } from "@/db";
import { type Brainstorm, type BrainstormArtifact, brainstormArtifacts } from "@/db/schema";
import {
  type FramingSubmission,
  type ProposalSubmission,
  RANKING_CRITERIA,
  type RankedCandidateDto,
  type StageKey,
  stageDefinition,
} from "@/lib/protocol/brainstorm";

/** Who submitted an item, beside the item. */
interface By {
  agentId: string;
  agentName: string;
}

interface Idea extends By {
  id: string;
  /** The pass of divergent thinking it came from. */
  pass: number;
  title: string;
  oneLiner: string;
  nodeId: string | null;
}
interface Precedent extends By {
  id: string;
  name: string;
  domain: string;
  tried: string;
  outcome: string;
  lesson: string;
  nodeId: string | null;
}
export interface Candidate extends By {
  id: string;
  title: string;
  cluster: string;
  summary: string;
  sourceIdeas: string[];
  /** The precedents it draws on, by id (candidates submitted without them have none). */
  precedents?: string[];
  combination: boolean;
  nodeId: string | null;
}
interface FactCheck extends By {
  candidateId: string;
  /** The pass of fact checking it was made in. */
  pass: number;
  rating: "pass" | "flag" | "fatal";
  assumptions: { text: string; rating: "solid" | "shaky" | "unfounded" }[];
  note: string;
}
interface Pushback extends By {
  candidateId: string;
  /** The pass of pushback it was made in. */
  pass: number;
  verdict: "strong" | "weakened" | "killed";
  argument: string;
}
interface Score extends By {
  candidateId: string;
  impact: number;
  feasibility: number;
  cost: number;
  speed: number;
  risk: number;
  rationale: string;
  total: number;
}

/** Everything the brainstorm has produced so far, merged from what each agent submitted. */
export interface BrainstormWork {
  framing: Required<FramingSubmission>;
  /** The nodes the framing is drawn in: those of the submissions its parts are taken from. */
  framingNodeIds: string[];
  /** Every idea of every pass of divergent thinking. */
  ideas: Idea[];
  precedents: Precedent[];
  /** The candidates of convergent thinking's latest pass. */
  candidates: Candidate[];
  /** Each agent's latest check of each candidate. */
  checks: FactCheck[];
  /** Each agent's latest verdict on each candidate. */
  pushback: Pushback[];
  /** The Strategist's scores of its latest pass. */
  scores: Score[];
  proposal: (ProposalSubmission & By & { nodeId: string | null }) | null;
  deliverable: (string & {}) | null;
  /** Which pass of each stage the latest artifacts belong to. */
  latestPass: Partial<Record<StageKey, number>>;
}

/** The weighted total of a candidate's five scores, out of 10. */
export function weightedTotal(score: Record<(typeof RANKING_CRITERIA)[number]["key"], number>): number {
  const total = RANKING_CRITERIA.reduce((sum, criterion) => sum + score[criterion.key] * criterion.weight, 0);
  return Math.round(total * 100) / 100;
}

const withNode = (row: BrainstormArtifact, index: number) => row.nodeIds[index] ?? null;

/** Merges artifact rows (oldest first) into the brainstorm's work. */
export function mergeWork(rows: BrainstormArtifact[]): BrainstormWork {
  const work: BrainstormWork = {
    framing: { scopeIn: [], scopeOut: [], constraints: [], successCriteria: [], keyQuestions: [] },
    framingNodeIds: [],
    ideas: [],
    precedents: [],
    candidates: [],
    checks: [],
    pushback: [],
    scores: [],
    proposal: null,
    deliverable: null,
    latestPass: {},
  };
  for (const row of rows) work.latestPass[row.stage] = Math.max(work.latestPass[row.stage] ?? 0, row.pass);
  const latest = (row: BrainstormArtifact) => row.pass === work.latestPass[row.stage];
  const framingNodes = new Map<keyof BrainstormWork["framing"], string | null>();
  const checks = new Map<string, FactCheck>();
  const verdicts = new Map<string, Pushback>();
  for (const row of rows) {
    const by = { agentId: row.agentId, agentName: row.agentName };
    const content = row.content;
    switch (row.stage) {
      case "framing":
        for (const key of Object.keys(work.framing) as (keyof BrainstormWork["framing"])[]) {
          const value = (content as FramingSubmission)[key];
          if (!value?.length) continue;
          work.framing[key] = value;
          framingNodes.set(key, withNode(row, 0));
        }
        break;
      case "divergent":
        work.ideas.push(
          ...(content.ideas as Omit<Idea, keyof By | "nodeId" | "pass">[]).map((idea, index) => ({
            ...idea,
            ...by,
            pass: row.pass,
            nodeId: withNode(row, index),
          })),
        );
        break;
      case "precedents":
        work.precedents.push(
          ...(content.precedents as Omit<Precedent, keyof By | "nodeId">[]).map((precedent, index) => ({
            ...precedent,
            ...by,
            nodeId: withNode(row, index),
          })),
        );
        break;
      case "convergent":
        if (latest(row)) {
          work.candidates.push(
            ...(content.candidates as Omit<Candidate, keyof By | "nodeId">[]).map((candidate, index) => ({
              ...candidate,
              ...by,
              nodeId: withNode(row, index),
            })),
          );
        }
        break;
      case "fact_check":
        for (const check of content.checks as Omit<FactCheck, keyof By | "pass">[])
          checks.set(`${check.candidateId}|${row.agentId}`, { ...check, ...by, pass: row.pass });
        break;
      case "pushback":
        for (const verdict of content.verdicts as Omit<Pushback, keyof By | "pass">[])
          verdicts.set(`${verdict.candidateId}|${row.agentId}`, { ...verdict, ...by, pass: row.pass });
        break;
      case "prioritization":
        if (latest(row)) {
          for (const score of content.scores as Omit<Score, keyof By | "total">[]) {
            work.scores = work.scores.filter((earlier) => earlier.candidateId !== score.candidateId);
            work.scores.push({ ...score, ...by, total: weightedTotal(score) });
          }
        }
        break;
      case "review":
        work.proposal = { ...(content as ProposalSubmission), ...by, nodeId: withNode(row, 0) };
        break;
      case "presentation":
        work.deliverable = String(content.markdown ?? "");
        break;
      case "gate":
        break;
    }
  }
  work.framingNodeIds = [...new Set([...framingNodes.values()].filter((id): id is string => id !== null))];
  work.checks = [...checks.values()];
  work.pushback = [...verdicts.values()];
  return work;
}

export async function readWork(tx: DbOrTx, brainstormId: string): Promise<BrainstormWork> {
  const rows = await tx
    .select()
    .from(brainstormArtifacts)
    .where(eq(brainstormArtifacts.brainstormId, brainstormId))
    .orderBy(asc(brainstormArtifacts.createdAt), asc(brainstormArtifacts.id));
  return mergeWork(rows);
}

/** Where a candidate stands after fact checking and pushback. */
export interface Standing {
  /** Out of the running: killed by both sceptics of pushback, or fatal to both fact checkers. */
  out: boolean;
  /** How the page and the prompts say it: "killed", "fatal", "flagged · weakened", "strong". */
  label: string;
}

export function standingOf(work: BrainstormWork, candidateId: string): Standing {
  const checks = work.checks.filter((check) => check.candidateId === candidateId);
  const verdicts = work.pushback.filter((verdict) => verdict.candidateId === candidateId);
  const fatal = checks.length >= 2 && checks.every((check) => check.rating === "fatal");
  const killed = verdicts.length >= 2 && verdicts.every((verdict) => verdict.verdict === "killed");
  if (killed) return { out: true, label: "killed" };
  if (fatal) return { out: true, label: "fatal" };
  const parts = [
    checks.some((check) => check.rating !== "pass") ? "flagged" : checks.length ? "checked" : null,
    verdicts.some((verdict) => verdict.verdict !== "strong") ? "weakened" : verdicts.length ? "strong" : null,
  ].filter(Boolean);
  return { out: false, label: parts.join(" · ") || "unchecked" };
}

/** The candidates still in the running, minus those the gate dropped. */
export function survivingCandidates(work: BrainstormWork, dropped: Set<string> = new Set()): Candidate[] {
  return work.candidates.filter((candidate) => !dropped.has(candidate.id) && !standingOf(work, candidate.id).out);
}

/** The candidates the gate shows: the surviving ones the Strategist scored, best first (ties by id). */
export function rankCandidates(work: BrainstormWork, dropped: Set<string>): RankedCandidateDto[] {
  const scores = new Map(work.scores.map((score) => [score.candidateId, score.total]));
  return survivingCandidates(work, dropped)
    .filter((candidate) => scores.has(candidate.id))
    .map((candidate) => ({
      id: candidate.id,
      title: candidate.title,
      summary: candidate.summary,
      score: scores.get(candidate.id)!,
      standing: standingOf(work, candidate.id).label,
    }))
    .sort((a, b) => b.score - a.score || a.id.localeCompare(b.id, undefined, { numeric: true }));
}

/**
 * The candidates the Strategist scored in `pass` of prioritization, however many calls it took:
 * what the stage's count is made of. A pass that has scored nothing yet has none, whatever an
 * earlier pass scored.
 */
export function scoredInPass(work: BrainstormWork, pass: number): Set<string> {
  return new Set(work.latestPass.prioritization === pass ? work.scores.map((score) => score.candidateId) : []);
}

/**
 * The candidates convergent thinking found in `pass`, over all its calls: what the stage's count
 * and its most of 8 are made of. A pass that has found nothing yet has none, whatever an earlier
 * pass found (that pass's candidates are the latest until then).
 */
export function candidatesOfPass(work: BrainstormWork, pass: number): Candidate[] {
  return work.latestPass.convergent === pass ? work.candidates : [];
}

export function droppedCandidates(brainstorm: Pick<Brainstorm, "decisions">): Set<string> {
  return new Set(
    brainstorm.decisions.filter((decision) => decision.action === "drop" && decision.candidateId).map((decision) => decision.candidateId!),
  );
}

/** How a stage's artifact measures up: its count, and what is missing (null when nothing is). */
export interface StageMeasure {
  count: number | null;
  /** What is missing, as the page says it. */
  shortfall: string | null;
  /** The stage's agents that fell short, by id; empty when the stage as a whole did. */
  shortAgents: string[];
  /**
   * What each agent asked again is told, by id, in a stage whose agents work alone: its own
   * part only, never another's name nor the stage's total. The other stages' agents are told
   * `shortfall`.
   */
  ownShortfalls?: Record<string, string>;
}

const plural = (count: number, word: string) => `${count} ${word}${count === 1 ? "" : "s"}`;

/**
 * Measures a stage's artifact against what it must hold, for the pass under way. `team` maps
 * the stage's agents' ids to their names; `inPlay` are the candidates the stage had to cover.
 */
export function measureStage(
  stage: StageKey,
  work: BrainstormWork,
  options: { pass: number; team: { id: string; name: string; persona: string }[]; inPlay: string[] },
): StageMeasure {
  const { team, inPlay } = options;
  const expect = stageDefinition(stage).expect;
  const byAgent =
    <T extends By>(items: T[]) =>
    (agentId: string) =>
      items.filter((item) => item.agentId === agentId).length;
  switch (stage) {
    case "framing": {
      const missing: string[] = [];
      const framing = work.framing;
      if (!framing.scopeIn.length || !framing.scopeOut.length) missing.push("the scope (in and out)");
      if (!framing.constraints.length) missing.push("the constraints");
      if (framing.successCriteria.length < 3) missing.push("3–5 success criteria");
      if (framing.keyQuestions.length !== 3) missing.push("3 key questions");
      const owners = team.filter((member) =>
        member.persona === "cartographer"
          ? missing.some((what) => what.includes("scope") || what.includes("constraints"))
          : missing.some((what) => what.includes("criteria") || what.includes("questions")),
      );
      return {
        count: null,
        shortfall: missing.length ? `Missing: ${missing.join(", ")}.` : null,
        shortAgents: owners.map((member) => member.id),
      };
    }
    case "divergent": {
      const count = work.ideas.length;
      const ideasOf = byAgent(work.ideas);
      const short = team.filter((member) => ideasOf(member.id) < (expect?.perAgent ?? 0));
      const problems = [
        ...short.map((member) => `${member.name} has ${plural(ideasOf(member.id), "idea")} of at least ${expect!.perAgent}`),
        ...(count < expect!.min! ? [`${count} ideas in all, of at least ${expect!.min}`] : []),
      ];
      // Each ideator hears of its own ideas only: how many it has, and what is asked of it.
      const ownShortfalls = problems.length
        ? Object.fromEntries(
            team.map((member) => [
              member.id,
              ideasOf(member.id) < expect!.perAgent!
                ? `you have ${plural(ideasOf(member.id), "idea")} of at least ${expect!.perAgent}.`
                : `you have ${plural(ideasOf(member.id), "idea")}; add new ones, up to ${expect!.perAgentMax} in all.`,
            ]),
          )
        : {};
      return {
        count,
        shortfall: problems.length ? `${problems.join("; ")}.` : null,
        shortAgents: short.map((member) => member.id),
        ownShortfalls,
      };
    }
    case "precedents": {
      const count = work.precedents.length;
      return {
        count,
        shortfall: count < expect!.min! ? `${plural(count, "precedent")} of at least ${expect!.min}.` : null,
        shortAgents: [],
      };
    }
    case "convergent": {
      const count = candidatesOfPass(work, options.pass).length;
      return {
        count,
        shortfall: count < expect!.min! ? `${plural(count, "candidate")} of ${expect!.min}–${expect!.max}.` : null,
        shortAgents: [],
      };
    }
    case "fact_check":
    case "pushback": {
      const items: (By & { candidateId: string; pass: number })[] = stage === "fact_check" ? work.checks : work.pushback;
      // Only this pass's: a deepened candidate is not covered by what the checkers said of it before.
      const covered = (agentId: string, candidateId: string) =>
        items.some((item) => item.agentId === agentId && item.candidateId === candidateId && item.pass === options.pass);
      const gaps = team
        .map((member) => ({ member, missing: inPlay.filter((candidateId) => !covered(member.id, candidateId)) }))
        .filter((gap) => gap.missing.length);
      const count = inPlay.filter((candidateId) => team.every((member) => covered(member.id, candidateId))).length;
      return {
        count,
        shortfall: gaps.length ? `${gaps.map((gap) => `${gap.member.name} has not covered ${gap.missing.join(", ")}`).join("; ")}.` : null,
        shortAgents: gaps.map((gap) => gap.member.id),
      };
    }
    case "prioritization": {
      const scored = scoredInPass(work, options.pass);
      const missing = inPlay.filter((candidateId) => !scored.has(candidateId));
      return {
        count: inPlay.length - missing.length,
        shortfall: missing.length ? `Not scored: ${missing.join(", ")}.` : null,
        shortAgents: [],
      };
    }
    case "review":
      return { count: null, shortfall: work.proposal ? null : "No proposal was submitted.", shortAgents: [] };
    case "presentation":
      return { count: null, shortfall: work.deliverable ? null : "No deliverable was submitted.", shortAgents: [] };
    case "gate":
      return { count: null, shortfall: null, shortAgents: [] };
  }
}
