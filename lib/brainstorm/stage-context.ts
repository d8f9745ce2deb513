import { and, eq, inArray, sql } from "drizzle-orm";
import type { Db } from "@/db";
import { type Agent, type Brainstorm, type Run, agents, brainstorms, canvasNodes } from "@/db/schema";
import { badRequest, conflict } from "@/lib/errors";
import { type StageKey, stageDefinition } from "@/lib/protocol/brainstorm";
import type { Shows, WorkflowPromptContext } from "@/lib/agents/workflow-registry";
import { FRAMING_KIND, LANE_HEADING_KIND } from "./lanes";
import { BRAINSTORM_GUIDANCE } from "./prompts";
import {
  type BrainstormWork,
  candidatesOfPass,
  droppedCandidates,
  rankCandidates,
  readWork,
  standingOf,
  survivingCandidates,
} from "./work";

/** A titled part of a stage run's prompt; `required` lines are never trimmed to fit the budget. */
interface StageSection {
  title: string;
  lines: string[];
  required: number;
  share: number;
}

/**
 * What a run may see of the room. A divergent thinker works alone: it sees the framing, the
 * lane headings and its own work, and nothing of the other ideators — not their nodes, board
 * entries or findings, not that they exist, not how many ideas there are so far.
 */
interface Isolation {
  /** The agent whose own work stays visible. */
  agentId: string;
  /** Node kinds everyone may see: the framing and the lane headings. */
  sharedKinds: ReadonlySet<string>;
  /** The agents working alone: nothing of theirs but the run's own is shown, whatever its kind. */
  alone: ReadonlySet<string>;
}

interface StageContext {
  brainstorm: Brainstorm;
  stage: StageKey;
  isolation: Isolation | null;
  sections: StageSection[];
}

/**
 * Whether an isolated run may see a node, or an edge (no kind: its label is its author's words,
 * and the nodes it joins are checked on their own): nothing another agent working alone wrote, of
 * any kind, and of everyone else's nodes only the shared kinds.
 */
function visibleTo(isolation: Isolation | null, item: { authorId: string; kind?: string }): boolean {
  if (!isolation || item.authorId === isolation.agentId) return true;
  if (isolation.alone.has(item.authorId)) return false;
  return item.kind === undefined || isolation.sharedKinds.has(item.kind);
}

const one = (text: string) => text.replace(/\s+/g, " ").trim();

function framingLines(work: BrainstormWork): string[] {
  const framing = work.framing;
  return [
    ...framing.scopeIn.map((line) => `- Scope in: ${one(line)}`),
    ...framing.scopeOut.map((line) => `- Scope out: ${one(line)}`),
    ...framing.constraints.map((line) => `- Constraint: ${one(line)}`),
    ...framing.successCriteria.map((line) => `- Success criterion: ${one(line)}`),
    ...framing.keyQuestions.map((line) => `- Key question: ${one(line)}`),
  ];
}

export function ideaLine(idea: BrainstormWork["ideas"][number]): string {
  return `- ${idea.id} [${idea.agentName}] ${one(idea.title)} — ${one(idea.oneLiner)}`;
}

function precedentLines(work: BrainstormWork): string[] {
  return work.precedents.map(
    // The lesson first: a long line may be cut to fit the prompt.
    (precedent) =>
      `- ${precedent.id} ${one(precedent.name)} (${one(precedent.domain)}) — Lesson: ${one(precedent.lesson)} Tried: ${one(precedent.tried)} → ${one(precedent.outcome)}`,
  );
}

function candidateLine(candidate: BrainstormWork["candidates"][number]): string {
  // The ids first: what the candidate refers to reads before what it says.
  return `- ${candidate.id} [${one(candidate.cluster)}] (from ${candidate.sourceIdeas.join(", ")}${candidate.combination ? "; a combination" : ""}) ${one(candidate.title)} — ${one(candidate.summary)}`;
}

function checkLines(work: BrainstormWork, candidates: string[]): string[] {
  return work.checks
    .filter((check) => candidates.includes(check.candidateId))
    .map(
      (check) =>
        `- ${check.candidateId} · ${check.agentName}: ${check.rating} — ${one(check.note)} (assumptions: ${check.assumptions.map((assumption) => `${one(assumption.text)} = ${assumption.rating}`).join("; ")})`,
    );
}

function pushbackLines(work: BrainstormWork, candidates: string[]): string[] {
  return work.pushback
    .filter((verdict) => candidates.includes(verdict.candidateId))
    .map((verdict) => `- ${verdict.candidateId} · ${verdict.agentName}: ${verdict.verdict} — ${one(verdict.argument)}`);
}

function proposalLines(work: BrainstormWork): string[] {
  const proposal = work.proposal;
  if (!proposal) return [];
  return [
    `- Concept: ${one(proposal.coreConcept)}`,
    ...proposal.steps.map((step, index) => `- Step ${index + 1}: ${one(step)}`),
    ...proposal.risks.map((risk) => `- Risk: ${one(risk.risk)} Mitigation: ${one(risk.mitigation)}`),
    `- First action: ${one(proposal.firstAction)}`,
  ];
}

const section = (title: string, lines: string[], required: boolean, share = 0.2): StageSection => ({
  title,
  lines,
  required: required ? lines.length : 0,
  share,
});

/** The candidates a stage's pass covers: the deepened one only, or every one still in play. */
export function candidatesInPlay(brainstorm: Brainstorm, stage: StageKey, work: BrainstormWork): string[] {
  if (stage === "fact_check" && brainstorm.deepenCandidateId) return [brainstorm.deepenCandidateId];
  if (stage === "fact_check" || stage === "pushback") return work.candidates.map((candidate) => candidate.id);
  if (stage === "prioritization") return survivingCandidates(work, droppedCandidates(brainstorm)).map((candidate) => candidate.id);
  return [];
}

/**
 * The prior stages' artifacts a stage run reads, and its co-participants, in the order a
 * participant in that stage needs them; what the stage must act on is required.
 */
function stageSections(input: {
  brainstorm: Brainstorm;
  stage: StageKey;
  agent: Agent;
  team: Agent[];
  work: BrainstormWork;
}): StageSection[] {
  const { brainstorm, stage, agent, team, work } = input;
  const definition = stageDefinition(stage);
  const framing = framingLines(work);
  const sections: StageSection[] = [];
  const coParticipants = definition.isolated
    ? []
    : team
        .filter((member) => definition.personas.includes(member.persona) && member.id !== agent.id)
        .map((member) => `- ${member.name} (persona: ${member.persona}) — ${member.role}`);
  switch (stage) {
    case "framing":
      sections.push(section("Framing so far", framing, true));
      break;
    case "divergent":
      sections.push(section("Framing", framing, true));
      sections.push(section("Your earlier ideas", work.ideas.filter((idea) => idea.agentId === agent.id).map(ideaLine), true));
      break;
    case "precedents":
      sections.push(section("Framing", framing, true));
      sections.push(section("Precedents found so far", precedentLines(work), false));
      break;
    case "convergent":
      sections.push(section("Framing", framing, false, 0.1));
      sections.push(section(`Ideas (${work.ideas.length} from divergent thinking)`, work.ideas.map(ideaLine), true, 0.4));
      sections.push(section("Precedents", precedentLines(work), false, 0.15));
      sections.push(section("Candidates so far", candidatesOfPass(work, brainstorm.stages.convergent.passes).map(candidateLine), true));
      break;
    case "fact_check":
    case "pushback": {
      const inPlay = candidatesInPlay(brainstorm, stage, work);
      sections.push(section("Framing", framing, false, 0.15));
      sections.push(
        section("Candidates", work.candidates.filter((candidate) => inPlay.includes(candidate.id)).map(candidateLine), true, 0.3),
      );
      sections.push(section("Precedents", precedentLines(work), false, 0.15));
      if (stage === "fact_check" && brainstorm.deepenCandidateId) sections.push(section("Earlier checks", checkLines(work, inPlay), false));
      break;
    }
    case "prioritization": {
      const inPlay = candidatesInPlay(brainstorm, stage, work);
      sections.push(section("Framing", framing, false, 0.1));
      sections.push(
        section(
          "Candidates still in play",
          work.candidates
            .filter((candidate) => inPlay.includes(candidate.id))
            .map((candidate) => `${candidateLine(candidate).replace(" (from", ` {${standingOf(work, candidate.id).label}} (from`)}`),
          true,
          0.3,
        ),
      );
      sections.push(section("Fact checks", checkLines(work, inPlay), false));
      sections.push(section("Pushback", pushbackLines(work, inPlay), false));
      break;
    }
    case "review":
    case "presentation": {
      const chosen = work.candidates.find((candidate) => candidate.id === brainstorm.chosenCandidateId);
      const ranking = rankCandidates(work, droppedCandidates(brainstorm));
      sections.push(section("Chosen candidate", chosen ? [candidateLine(chosen)] : [], true));
      sections.push(section("Framing", framing, stage === "review", 0.15));
      sections.push(
        section(
          "Ranking approved at the gate",
          ranking.map(
            (candidate, index) => `- ${index + 1}. ${candidate.id} ${one(candidate.title)} — ${candidate.score} (${candidate.standing})`,
          ),
          stage === "presentation",
          0.15,
        ),
      );
      if (chosen) {
        sections.push(
          section("Checks of the chosen candidate", [...checkLines(work, [chosen.id]), ...pushbackLines(work, [chosen.id])], false),
        );
      }
      if (stage === "presentation") sections.push(section("Proposal", proposalLines(work), true, 0.25));
      sections.push(section("Precedents", precedentLines(work), false, 0.1));
      break;
    }
    case "gate":
      break;
  }
  sections.push(section("Co-participants", coParticipants, false, 0.05));
  return sections.filter((each) => each.lines.length > 0);
}

/** The stage a brainstorm run works in, what it may see, and what it reads; null for any other run. */
async function loadStageContext(db: Db, run: Run, agent: Agent, team: Agent[]): Promise<StageContext | null> {
  const purpose = run.purpose;
  if (purpose?.kind !== "brainstorm") return null;
  const [brainstorm] = await db.select().from(brainstorms).where(eq(brainstorms.id, purpose.brainstormId));
  if (!brainstorm) return null;
  const definition = stageDefinition(purpose.stage);
  const isolation = definition.isolated ? isolationOf(agent.id, await isolatedAgentIds(db, run.roomId)) : null;
  const work = await readWork(db, brainstorm.id);
  return { brainstorm, stage: purpose.stage, isolation, sections: stageSections({ brainstorm, stage: purpose.stage, agent, team, work }) };
}

/** What a brainstorm adds to its stage runs' prompts: the stage's sections and guidance, and what a divergent thinker may see. */
export async function stagePromptContext(db: Db, input: { run: Run; agent: Agent; team: Agent[] }): Promise<WorkflowPromptContext | null> {
  const stage = await loadStageContext(db, input.run, input.agent, input.team);
  if (!stage) return null;
  const { isolation } = stage;
  return { sections: stage.sections, guidance: BRAINSTORM_GUIDANCE, ...(isolation ? { shows: (item) => visibleTo(isolation, item) } : {}) };
}

/** What an ideator working alone may see outside a stage run of its own: the framing, the lane headings and its own work. */
export async function shownToAlone(db: Db, roomId: string, agentId: string): Promise<Shows> {
  const isolation = isolationOf(agentId, await isolatedAgentIds(db, roomId));
  return (item) => visibleTo(isolation, item);
}

/** What an isolated divergent thinker may see besides its own work, `alone` being every agent working alone. */
function isolationOf(agentId: string, alone: ReadonlySet<string>): Isolation {
  return { agentId, sharedKinds: new Set([FRAMING_KIND, LANE_HEADING_KIND]), alone };
}

/** The divergent thinkers of a brainstorm whose divergent stage is running in the room, and when its pass began. */
function ideatorsAtWork(db: Db, roomId: string) {
  return db
    .select({ id: agents.id, since: sql<string | null>`${brainstorms.stages}->'divergent'->>'startedAt'` })
    .from(agents)
    .innerJoin(brainstorms, eq(brainstorms.roomId, agents.roomId))
    .where(
      and(
        eq(agents.roomId, roomId),
        eq(brainstorms.status, "running"),
        sql`${brainstorms.stages}->'divergent'->>'status' = 'running'`,
        inArray(agents.persona, stageDefinition("divergent").personas),
      ),
    );
}

/**
 * The agents working alone right now: the divergent thinkers of a brainstorm whose divergent
 * stage is running in the room. Any run of theirs sees only its own work, and no one may ask
 * them anything (requests, help, ask_others) until the stage ends.
 */
export async function isolatedAgentIds(db: Db, roomId: string): Promise<Set<string>> {
  return new Set((await ideatorsAtWork(db, roomId)).map((row) => row.id));
}

/**
 * Refuses (409) what a person would send an agent working alone — a message, a run started
 * with their prompt: while divergent thinking runs, nothing from outside may reach an ideator
 * (a message could carry another ideator's ideas), and nothing sent then could still be of use
 * to its part once the ideas are released. The reason says when to send it instead.
 */
export async function refuseWhileAlone(db: Db, roomId: string, agent: Pick<Agent, "id" | "name">): Promise<void> {
  if (!(await isolatedAgentIds(db, roomId)).has(agent.id)) return;
  throw conflict(
    `${agent.name} is working alone in the brainstorm's divergent thinking (stage 1): nobody may reach it until the ideas are released, so that what it thinks of is its own. Send this once stage 1 has ended.`,
  );
}

/** What an agent working alone is told when it would ask anyone anything. */
export const ASKING_WHILE_ALONE =
  "You are working alone in the brainstorm's divergent thinking (stage 1): you may ask no one until it ends. Carry on with your own ideas.";

/**
 * Refuses, as an error the model reads, an ideator's change to a node it did not write while it
 * works alone: the framing everyone reads, edited, would carry its ideas to the other ideators.
 * Checked for any run of an ideator, a run that began before the stage included; other agents
 * pay nothing for it.
 */
export async function refuseChangingOthersNodesWhileAlone(
  db: Db,
  roomId: string,
  agent: Pick<Agent, "id" | "persona">,
  nodeId: string,
): Promise<void> {
  if (!stageDefinition("divergent").personas.includes(agent.persona)) return;
  if (!(await isolatedAgentIds(db, roomId)).has(agent.id)) return;
  const [node] = await db
    .select({ authorId: canvasNodes.authorId })
    .from(canvasNodes)
    .where(and(eq(canvasNodes.id, nodeId), eq(canvasNodes.roomId, roomId)));
  if (node && node.authorId !== agent.id) {
    throw badRequest(
      "You are working alone in the brainstorm's divergent thinking (stage 1): you may change only your own nodes until the ideas are released.",
    );
  }
}

/**
 * Refuses, as an error the model reads, a request, a help request or a question that would reach
 * an agent working alone, or that one working alone would put to anyone. Checked inside the write
 * that makes it (behind the room's lock), not against the team a run listed when it began: a run
 * that started before divergent thinking still names the ideators, and must not reach them
 * during it. The refusal says nothing of anyone's work.
 */
export async function refuseAskingWhileAlone(
  db: Db,
  roomId: string,
  asker: Pick<Agent, "id">,
  target: Pick<Agent, "id" | "name">,
): Promise<void> {
  const alone = await isolatedAgentIds(db, roomId);
  if (alone.has(asker.id)) {
    throw badRequest(ASKING_WHILE_ALONE);
  }
  if (alone.has(target.id)) {
    throw badRequest(
      `${target.name} is working alone in the brainstorm's divergent thinking (stage 1): nobody may ask it anything until the ideas are released. Ask again once stage 1 has ended, or ask someone else.`,
    );
  }
}

/** What divergent thinking keeps from everyone else until it releases its ideas: what its ideators wrote since its pass began. */
export interface HeldBack {
  agentIds: ReadonlySet<string>;
  since: Date;
}

/** The divergent thinkers' work held back from every other run in the room; null while no divergent stage runs there. */
export async function heldBackWork(db: Db, roomId: string): Promise<HeldBack | null> {
  const rows = await ideatorsAtWork(db, roomId);
  if (!rows.length) return null;
  return {
    agentIds: new Set(rows.map((row) => row.id)),
    since: new Date(Math.min(...rows.map((row) => Date.parse(row.since ?? "") || 0))),
  };
}
