import { and, eq, inArray, sql } from "drizzle-orm";
import type { Db } from "@/db";
import { type Agent, type Brainstorm, type Run, agents, brainstorms, canvasNodes } from "@/db/schema";
import { badRequest, conflict } from "@/lib/errors";
import { type StageKey, stageDefinition } from "@/lib/protocol/brainstorm";
import type { Shows, WorkflowPromptContext } from "@/lib/agents/workflow-registry";
import type { JSONObject } from "@ai-sdk/provider";
import { FRAMING_KIND, LANE_HEADING_KIND } from "./lanes";
import type { StageSectionItem, StageSectionKey } from "./task-data";
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

/** A titled part of a stage run's prompt; `required` lines are never trimmed to fit the budget; `items` hold each line's data. */
interface StageSection {
  title: string;
  key: StageSectionKey;
  lines: string[];
  items: JSONObject[];
  required: number;
  share: number;
}

/** One line of a section and its data. */
interface Shown<K extends StageSectionKey> {
  line: string;
  item: StageSectionItem<K>;
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

const FRAMING_LABELS = {
  scopeIn: "Scope in",
  scopeOut: "Scope out",
  constraint: "Constraint",
  successCriterion: "Success criterion",
  keyQuestion: "Key question",
} as const;

function framingLines(work: BrainstormWork): Shown<"framing">[] {
  const framing = work.framing;
  const parts: [keyof typeof FRAMING_LABELS, string[]][] = [
    ["scopeIn", framing.scopeIn],
    ["scopeOut", framing.scopeOut],
    ["constraint", framing.constraints],
    ["successCriterion", framing.successCriteria],
    ["keyQuestion", framing.keyQuestions],
  ];
  return parts.flatMap(([part, texts]) =>
    texts.map((text) => ({ line: `- ${FRAMING_LABELS[part]}: ${one(text)}`, item: { part, text: one(text) } })),
  );
}

function ideaShown(idea: BrainstormWork["ideas"][number]): Shown<"ideas"> {
  return {
    line: ideaLine(idea),
    item: { id: idea.id, author: idea.agentName, title: one(idea.title), oneLiner: one(idea.oneLiner) },
  };
}

export function ideaLine(idea: BrainstormWork["ideas"][number]): string {
  return `- ${idea.id} [${idea.agentName}] ${one(idea.title)} — ${one(idea.oneLiner)}`;
}

function precedentLines(work: BrainstormWork): Shown<"precedents">[] {
  return work.precedents.map((precedent) => ({
    // The lesson first: a long line may be cut to fit the prompt.
    line: `- ${precedent.id} ${one(precedent.name)} (${one(precedent.domain)}) — Lesson: ${one(precedent.lesson)} Tried: ${one(precedent.tried)} → ${one(precedent.outcome)}`,
    item: {
      id: precedent.id,
      name: one(precedent.name),
      domain: one(precedent.domain),
      lesson: one(precedent.lesson),
      tried: one(precedent.tried),
      outcome: one(precedent.outcome),
    },
  }));
}

function candidateShown(candidate: BrainstormWork["candidates"][number], standing: string | null = null): Shown<"candidates"> {
  // The ids first: what the candidate refers to reads before what it says.
  return {
    line: `- ${candidate.id} [${one(candidate.cluster)}]${standing ? ` {${standing}}` : ""} (from ${candidate.sourceIdeas.join(", ")}${candidate.combination ? "; a combination" : ""}) ${one(candidate.title)} — ${one(candidate.summary)}`,
    item: {
      id: candidate.id,
      cluster: one(candidate.cluster),
      title: one(candidate.title),
      summary: one(candidate.summary),
      sourceIdeas: candidate.sourceIdeas,
      combination: candidate.combination,
      standing,
    },
  };
}

function checkLines(work: BrainstormWork, candidates: string[]): Shown<"fact-checks">[] {
  return work.checks
    .filter((check) => candidates.includes(check.candidateId))
    .map((check) => ({
      line: `- ${check.candidateId} · ${check.agentName}: ${check.rating} — ${one(check.note)} (assumptions: ${check.assumptions.map((assumption) => `${one(assumption.text)} = ${assumption.rating}`).join("; ")})`,
      item: { candidateId: check.candidateId, agent: check.agentName, rating: check.rating, text: one(check.note) },
    }));
}

function pushbackLines(work: BrainstormWork, candidates: string[]): Shown<"pushback">[] {
  return work.pushback
    .filter((verdict) => candidates.includes(verdict.candidateId))
    .map((verdict) => ({
      line: `- ${verdict.candidateId} · ${verdict.agentName}: ${verdict.verdict} — ${one(verdict.argument)}`,
      item: { candidateId: verdict.candidateId, agent: verdict.agentName, rating: verdict.verdict, text: one(verdict.argument) },
    }));
}

function proposalLines(work: BrainstormWork): Shown<"proposal">[] {
  const proposal = work.proposal;
  if (!proposal) return [];
  const part = (kind: StageSectionItem<"proposal">["part"], line: string, text: string, mitigation: string | null = null) => ({
    line,
    item: { part: kind, text, mitigation },
  });
  return [
    part("concept", `- Concept: ${one(proposal.coreConcept)}`, one(proposal.coreConcept)),
    ...proposal.steps.map((step, index) => part("step", `- Step ${index + 1}: ${one(step)}`, one(step))),
    ...proposal.risks.map((risk) =>
      part("risk", `- Risk: ${one(risk.risk)} Mitigation: ${one(risk.mitigation)}`, one(risk.risk), one(risk.mitigation)),
    ),
    part("firstAction", `- First action: ${one(proposal.firstAction)}`, one(proposal.firstAction)),
  ];
}

function section<K extends StageSectionKey>(key: K, title: string, shown: Shown<K>[], required: boolean, share = 0.2): StageSection {
  return {
    title,
    key,
    lines: shown.map((each) => each.line),
    items: shown.map((each) => each.item),
    required: required ? shown.length : 0,
    share,
  };
}

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
  const coParticipants: Shown<"co-participants">[] = definition.isolated
    ? []
    : team
        .filter((member) => definition.personas.includes(member.persona) && member.id !== agent.id)
        .map((member) => ({
          line: `- ${member.name} (persona: ${member.persona}) — ${member.role}`,
          item: { name: member.name, persona: member.persona, role: member.role },
        }));
  switch (stage) {
    case "framing":
      sections.push(section("framing", "Framing so far", framing, true));
      break;
    case "divergent":
      sections.push(section("framing", "Framing", framing, true));
      sections.push(
        section("earlier-ideas", "Your earlier ideas", work.ideas.filter((idea) => idea.agentId === agent.id).map(ideaShown), true),
      );
      break;
    case "precedents":
      sections.push(section("framing", "Framing", framing, true));
      sections.push(section("precedents", "Precedents found so far", precedentLines(work), false));
      break;
    case "convergent":
      sections.push(section("framing", "Framing", framing, false, 0.1));
      sections.push(section("ideas", `Ideas (${work.ideas.length} from divergent thinking)`, work.ideas.map(ideaShown), true, 0.4));
      sections.push(section("precedents", "Precedents", precedentLines(work), false, 0.15));
      sections.push(
        section(
          "candidates",
          "Candidates so far",
          candidatesOfPass(work, brainstorm.stages.convergent.passes).map((candidate) => candidateShown(candidate)),
          true,
        ),
      );
      break;
    case "fact_check":
    case "pushback": {
      const inPlay = candidatesInPlay(brainstorm, stage, work);
      sections.push(section("framing", "Framing", framing, false, 0.15));
      sections.push(
        section(
          "candidates",
          "Candidates",
          work.candidates.filter((candidate) => inPlay.includes(candidate.id)).map((candidate) => candidateShown(candidate)),
          true,
          0.3,
        ),
      );
      sections.push(section("precedents", "Precedents", precedentLines(work), false, 0.15));
      if (stage === "fact_check" && brainstorm.deepenCandidateId)
        sections.push(section("earlier-checks", "Earlier checks", checkLines(work, inPlay), false));
      break;
    }
    case "prioritization": {
      const inPlay = candidatesInPlay(brainstorm, stage, work);
      sections.push(section("framing", "Framing", framing, false, 0.1));
      sections.push(
        section(
          "candidates",
          "Candidates still in play",
          work.candidates
            .filter((candidate) => inPlay.includes(candidate.id))
            .map((candidate) => candidateShown(candidate, standingOf(work, candidate.id).label)),
          true,
          0.3,
        ),
      );
      sections.push(section("fact-checks", "Fact checks", checkLines(work, inPlay), false));
      sections.push(section("pushback", "Pushback", pushbackLines(work, inPlay), false));
      break;
    }
    case "review":
    case "presentation": {
      const chosen = work.candidates.find((candidate) => candidate.id === brainstorm.chosenCandidateId);
      const ranking = rankCandidates(work, droppedCandidates(brainstorm));
      sections.push(section("chosen", "Chosen candidate", chosen ? [candidateShown(chosen)] : [], true));
      sections.push(section("framing", "Framing", framing, stage === "review", 0.15));
      sections.push(
        section(
          "ranking",
          "Ranking approved at the gate",
          ranking.map((candidate, index) => ({
            line: `- ${index + 1}. ${candidate.id} ${one(candidate.title)} — ${candidate.score} (${candidate.standing})`,
            item: {
              place: index + 1,
              candidateId: candidate.id,
              title: one(candidate.title),
              score: candidate.score,
              standing: candidate.standing,
            },
          })),
          stage === "presentation",
          0.15,
        ),
      );
      if (chosen) {
        sections.push(
          section(
            "chosen-checks",
            "Checks of the chosen candidate",
            [...checkLines(work, [chosen.id]), ...pushbackLines(work, [chosen.id])],
            false,
          ),
        );
      }
      if (stage === "presentation") sections.push(section("proposal", "Proposal", proposalLines(work), true, 0.25));
      sections.push(section("precedents", "Precedents", precedentLines(work), false, 0.1));
      break;
    }
    case "gate":
      break;
  }
  sections.push(section("co-participants", "Co-participants", coParticipants, false, 0.05));
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
