import { ownValue } from "@/lib/own-value";
import { BRAINSTORM_STAGES, type StageKey, stageDefinition } from "@/lib/protocol/brainstorm";
import type { BrainstormTask } from "./task-data";

/** The tool each stage's work is submitted with. */
export const SUBMIT_TOOL: Record<Exclude<StageKey, "gate">, string> = {
  framing: "submit_framing",
  divergent: "submit_ideas",
  precedents: "submit_precedents",
  convergent: "submit_candidates",
  fact_check: "submit_fact_checks",
  pushback: "submit_pushback",
  prioritization: "submit_ranking",
  review: "submit_proposal",
  presentation: "submit_presentation",
};

/** Each persona's share of its stage's work, as its task says it. */
const PARTS: Record<string, string> = {
  cartographer:
    "Map the problem: what is in scope and out of scope, and the constraints any answer must respect. Submit scopeIn, scopeOut and constraints.",
  questioner:
    "Read the Cartographer's map and decide how the team will know the problem is solved: 3–5 success criteria and exactly 3 key questions. Submit successCriteria and keyQuestions.",
  "wild-ideator": "Generate bold, unexpected ideas; quantity and range matter more than polish. At least 5, up to 15.",
  "cross-pollinator": "Bring in what works in other fields and apply it to this problem. At least 5 ideas, up to 15.",
  "first-principles-thinker": "Strip the problem to its fundamentals and rebuild ideas from them. At least 5 ideas, up to 15.",
  contrarian: "Question the obvious: invert assumptions and propose what others would not. At least 5 ideas, up to 15.",
  historian: "Find precedents: organisations or projects that tried something like this, what happened and what it teaches.",
  analogist: "Find precedents in other domains that faced an analogous problem, what they tried and the lesson.",
  synthesizer:
    "Cluster the ideas by theme and turn the strongest clusters into candidates, each naming the ideas it builds on and the precedents it draws on, if any.",
  connector:
    "Read the Synthesizer's candidates and add candidates that combine ideas from different clusters (combination: true), so there are 5–8 in all.",
  skeptic: "Check every candidate's claims and assumptions: pass, flag or fatal, each assumption rated solid, shaky or unfounded.",
  "feasibility-analyst":
    "Check whether every candidate can be built and run with the constraints given: pass, flag or fatal, assumptions rated.",
  "devils-advocate": "Argue against every candidate as hard as you can: strong (survives), weakened, or killed.",
  pragmatist: "Judge every candidate by what it takes to make it real: strong, weakened, or killed.",
  strategist: "Score every surviving candidate 1–10 on impact, feasibility, cost, speed and risk; Parley ranks them by the weighted total.",
  architect: "Turn the approved candidate into a proposal: the core concept, 4–6 steps, 2 risks with mitigations, and the first action.",
  narrator:
    "Write the final deliverable in markdown with the sections Recommendation, Reasons, Steps, Risks and Alternatives, for someone who saw none of the work.",
};

/**
 * What a stage's run is asked to do — the process, the stage and its goal, the persona's part,
 * how to submit — in words (the run's prompt) and as data, made from the same values.
 */
export function stageTask(input: {
  stage: StageKey;
  problem: string;
  persona: string;
  shortfall?: string | null;
  /** The candidates this pass covers, when not all of them (a deepened candidate). */
  focus?: string | null;
  /** A participant's comment sending the ranking back. */
  redirect?: string | null;
  /** Why the stage runs again in a new pass (convergent thinking found too few candidates). */
  again?: string | null;
  /** How many more ideas an ideator may add, its earlier ones counted. */
  ideasLeft?: number | null;
}): { prompt: string; taskData: BrainstormTask } {
  const stage = stageDefinition(input.stage);
  const problem = input.problem.replace(/\s+/g, " ").trim();
  const lines = [
    `## Brainstorm stage ${stage.number} of ${BRAINSTORM_STAGES.filter((each) => each.number !== null).length}: ${stage.name}`,
    `Problem: ${problem}`,
    `Stage goal: ${stage.goalAlone ?? stage.goal}`,
    `Your part (persona: ${input.persona}): ${ownValue(PARTS, input.persona) ?? stage.goal}`,
    `Submit your work with ${SUBMIT_TOOL[input.stage as Exclude<StageKey, "gate">]}; it is checked, and an error tells you what to fix. Then finish with one sentence saying what you submitted.`,
  ];
  if (input.focus) lines.push(`Go deeper on candidate ${input.focus} only: the people in the room asked for a closer look.`);
  if (input.redirect)
    lines.push(`The people in the room sent the ranking back with this comment: "${input.redirect}". Take it into account.`);
  if (input.again) {
    const most = input.ideasLeft ? `, at most ${input.ideasLeft} more` : "";
    lines.push(`This stage runs again: ${input.again} Add new ideas, different from your earlier ones${most}.`);
  }
  if (input.shortfall) lines.push(`You are asked again because the stage fell short: ${input.shortfall} Submit what is missing.`);
  return {
    prompt: lines.join("\n"),
    taskData: {
      workflow: "brainstorm",
      stage: input.stage,
      number: stage.number ?? 0,
      name: stage.name,
      problem,
      persona: input.persona,
      shortfall: input.shortfall ?? null,
      again: input.again ?? null,
      focus: input.focus ?? null,
      redirect: input.redirect ?? null,
    },
  };
}

/** What stage runs are told about working in a brainstorm, in place of the canvas guidance. */
export const BRAINSTORM_GUIDANCE = [
  "## Working in a brainstorm",
  "- The process moves the work from stage to stage; you take part in one stage. Do your part with the submit tool your task names: the canvas shows what you submit.",
  "- Build on the prior stages' artifacts shown to you; refer to ideas, precedents and candidates by the ids shown (P2, C3).",
  "- post_finding shares a discovery the whole team should know (high only for what changes the team's direction). update_knowledge saves an insight for later rooms.",
  "- Be specific to the problem: name who, what and how, not generalities.",
].join("\n");
