import { and, eq, inArray, ne, sql } from "drizzle-orm";
import type { DbOrTx } from "@/db";
import { type Agent, type Brainstorm, type Run, agents, brainstorms, rooms, runs } from "@/db/schema";
import { enqueueRun } from "@/lib/agents/enqueue-run";
import type { Emit } from "@/lib/events/write-room-events";
import { BRAINSTORM_PHASES, type StageDefinition, type StageKey, type StageStateDto, stageDefinition } from "@/lib/protocol/brainstorm";
import { parseRoomSettings } from "@/lib/rooms/room-settings";
import { brainstormToDto } from "./brainstorm-dto";
import { composeDeliverable } from "./deliverable";
import { followUpHeldMessages, holdBackFromIdeators } from "./held-messages";
import { BRAINSTORM_AUTHOR, addLaneHeading } from "./lanes";
import { stageTask } from "./prompts";
import { candidatesInPlay } from "./stage-context";
import { type BrainstormWork, type StageMeasure, droppedCandidates, measureStage, rankCandidates, readWork } from "./work";

/** What moving a brainstorm on needs: the room write under way and the room's agents. */
export interface BrainstormStep {
  tx: DbOrTx;
  emit: Emit;
  at: Date;
  team: Agent[];
}

export const FINISHED = new Set(["complete", "cancelled"]);

/** Ends below this many candidates send the process back to divergent thinking (once). */
const TOO_FEW_CANDIDATES = 3;

export function emptyStage(): StageStateDto {
  return {
    status: "pending",
    passes: 0,
    rerun: false,
    startedAt: null,
    endedAt: null,
    count: null,
    total: null,
    shortfall: null,
    timedOut: false,
  };
}

/** Reads a brainstorm for a change, locking its row until the room write commits. */
export async function lockBrainstorm(tx: DbOrTx, brainstormId: string): Promise<Brainstorm | undefined> {
  const [brainstorm] = await tx.select().from(brainstorms).where(eq(brainstorms.id, brainstormId)).for("update");
  return brainstorm;
}

/** Saves a change to the brainstorm and returns it as it now is. */
export async function saveBrainstorm(step: BrainstormStep, brainstorm: Brainstorm, change: Partial<Brainstorm>): Promise<Brainstorm> {
  const next = { ...brainstorm, ...change };
  await step.tx
    .update(brainstorms)
    .set({ ...change })
    .where(eq(brainstorms.id, brainstorm.id));
  return next;
}

async function roomSettings(tx: DbOrTx, roomId: string) {
  const [room] = await tx.select({ settings: rooms.settings }).from(rooms).where(eq(rooms.id, roomId));
  return parseRoomSettings(room?.settings);
}

/** The brainstorm as the page shows it, read inside the write under way. */
export async function currentDto(step: BrainstormStep, brainstorm: Brainstorm, work?: BrainstormWork) {
  return brainstormToDto(brainstorm, work ?? (await readWork(step.tx, brainstorm.id)), await roomSettings(step.tx, brainstorm.roomId));
}

function withStage(brainstorm: Brainstorm, stage: StageKey, change: Partial<StageStateDto>): Brainstorm["stages"] {
  return { ...brainstorm.stages, [stage]: { ...brainstorm.stages[stage], ...change } };
}

async function announceStage(step: BrainstormStep, brainstorm: Brainstorm, stage: StageKey, work?: BrainstormWork): Promise<void> {
  const state = brainstorm.stages[stage];
  step.emit({
    type: "brainstorm.stage",
    actor: BRAINSTORM_AUTHOR,
    correlationId: brainstorm.correlationId,
    status: state.status === "short" ? "error" : "success",
    payload: {
      brainstormId: brainstorm.id,
      stage,
      status: state.status,
      pass: state.passes,
      rerun: state.rerun,
      count: state.count,
      shortfall: state.shortfall,
      brainstorm: await currentDto(step, brainstorm, work),
    },
  });
}

function member(step: BrainstormStep, persona: string): Agent {
  const found = step.team.find((agent) => agent.persona === persona);
  if (!found) throw new Error(`A brainstorm needs its ${persona}.`);
  return found;
}

/** Queues a stage's run for one of its personas. */
async function queueStageRun(
  step: BrainstormStep,
  brainstorm: Brainstorm,
  stage: StageKey,
  persona: string,
  options: { rerun: boolean; shortfall?: string | null; again?: string | null; ideasLeft?: number | null; parentRunId?: string | null },
): Promise<void> {
  const agent = member(step, persona);
  await enqueueRun(step.tx, step.emit, {
    roomId: brainstorm.roomId,
    agentId: agent.id,
    trigger: "request",
    requestedBy: BRAINSTORM_AUTHOR,
    ...stageTask({
      stage,
      problem: brainstorm.problem,
      persona,
      shortfall: options.shortfall,
      again: options.again,
      ideasLeft: options.ideasLeft,
      focus: stage === "fact_check" ? brainstorm.deepenCandidateId : null,
      redirect: stage === "prioritization" ? brainstorm.redirect : null,
    }),
    parentRunId: options.parentRunId ?? null,
    correlationId: brainstorm.correlationId,
    purpose: { kind: "brainstorm", brainstormId: brainstorm.id, stage, pass: brainstorm.stages[stage].passes, rerun: options.rerun },
    at: step.at,
  });
}

/** How many more ideas an ideator may add: its ideas of every pass of divergent thinking count towards its most. */
function ideasLeft(work: BrainstormWork, agent: Agent): number {
  return stageDefinition("divergent").expect!.perAgentMax! - work.ideas.filter((idea) => idea.agentId === agent.id).length;
}

/**
 * Starts a stage (again): a new pass, its lane on the canvas the first time, and its first runs
 * (every persona of a parallel stage, the first of a sequential one). A stage with nothing to
 * work on is skipped. The gate opens instead of running anyone.
 */
export async function enterStage(
  step: BrainstormStep,
  brainstorm: Brainstorm,
  stage: StageKey,
  parentRunId: string | null,
  again: string | null = null,
): Promise<Brainstorm> {
  if (stage === "gate") return openGate(step, brainstorm);
  const previous = brainstorm.stages[stage];
  const work = await readWork(step.tx, brainstorm.id);
  const needsCandidates = !!stageDefinition(stage).expect?.everyCandidate;
  // What the stage's count is out of: the candidates this pass covers.
  const total = needsCandidates ? candidatesInPlay(brainstorm, stage, work).length : null;
  if (total === 0) {
    const skipped = await saveBrainstorm(step, brainstorm, {
      stages: withStage(brainstorm, stage, {
        ...emptyStage(),
        status: "skipped",
        passes: previous.passes + 1,
        startedAt: step.at.toISOString(),
        endedAt: step.at.toISOString(),
        count: 0,
        total,
        shortfall: "No candidate is left to work on.",
      }),
    });
    await announceStage(step, skipped, stage, work);
    return continueAfter(step, skipped, stage, parentRunId);
  }
  const entered = await saveBrainstorm(step, brainstorm, {
    status: "running",
    stages: withStage(brainstorm, stage, {
      status: "running",
      passes: previous.passes + 1,
      rerun: false,
      startedAt: step.at.toISOString(),
      endedAt: null,
      count: null,
      total,
      shortfall: null,
      timedOut: false,
    }),
  });
  // The ideators work alone from now: what people sent them before waits until the ideas are released, and what teammates asked of them is called off.
  if (stage === "divergent") await holdBackFromIdeators(step, brainstorm.roomId);
  if (previous.passes === 0) {
    await addLaneHeading(step.tx, step.emit, {
      roomId: brainstorm.roomId,
      stage,
      laneTop: brainstorm.laneTop,
      correlationId: brainstorm.correlationId,
      at: step.at,
    });
  }
  const definition = stageDefinition(stage);
  const first = definition.order === "parallel" ? definition.personas : definition.personas.slice(0, 1);
  for (const persona of first) {
    const left = stage === "divergent" ? ideasLeft(work, member(step, persona)) : null;
    // Back in divergent thinking, an ideator with its most ideas already is not asked again.
    if (left !== null && left <= 0) continue;
    await queueStageRun(step, entered, stage, persona, { rerun: false, again, ideasLeft: again ? left : null, parentRunId });
  }
  await announceStage(step, entered, stage, work);
  return entered;
}

/** Starts the stages of the phase after the one `stage` belongs to, once every stage of that phase has ended. */
async function continueAfter(
  step: BrainstormStep,
  brainstorm: Brainstorm,
  stage: StageKey,
  parentRunId: string | null,
): Promise<Brainstorm> {
  const index = BRAINSTORM_PHASES.findIndex((phase) => phase.includes(stage));
  const phase = BRAINSTORM_PHASES[index]!;
  if (phase.some((other) => brainstorm.stages[other].status === "running")) return brainstorm;
  const next = BRAINSTORM_PHASES[index + 1];
  if (!next) return complete(step, brainstorm);
  let current = brainstorm;
  for (const nextStage of next) current = await enterStage(step, current, nextStage, parentRunId);
  return current;
}

/** Opens the gate: the room waits for its participants to decide on the ranked shortlist. It never times out. */
async function openGate(step: BrainstormStep, brainstorm: Brainstorm): Promise<Brainstorm> {
  const work = await readWork(step.tx, brainstorm.id);
  const round = brainstorm.gateRound + 1;
  const opened = await saveBrainstorm(step, brainstorm, {
    status: "awaiting_gate",
    gateRound: round,
    gateOpenedAt: step.at,
    deepenCandidateId: null,
    redirect: null,
    stages: withStage(brainstorm, "gate", {
      status: "awaiting",
      passes: brainstorm.stages.gate.passes + 1,
      startedAt: step.at.toISOString(),
      endedAt: null,
      count: null,
      shortfall: null,
    }),
  });
  const dto = await currentDto(step, opened, work);
  step.emit({
    type: "brainstorm.gate_opened",
    actor: BRAINSTORM_AUTHOR,
    correlationId: brainstorm.correlationId,
    status: "pending",
    nextSteps: ["brainstorm.gate_decided"],
    payload: { brainstormId: brainstorm.id, round, ranking: rankCandidates(work, droppedCandidates(opened)), brainstorm: dto },
  });
  return opened;
}

/** The brainstorm is done: the deliverable is kept for download. */
async function complete(step: BrainstormStep, brainstorm: Brainstorm): Promise<Brainstorm> {
  const done = await saveBrainstorm(step, brainstorm, { status: "complete", finishedAt: step.at });
  step.emit({
    type: "brainstorm.completed",
    actor: BRAINSTORM_AUTHOR,
    correlationId: brainstorm.correlationId,
    status: Object.values(done.stages).some((stage) => stage.status === "short") ? "error" : "success",
    payload: { brainstormId: brainstorm.id, outcome: "complete", brainstorm: await currentDto(step, done) },
  });
  return done;
}

/** The stage's runs of the pass under way that have not ended yet, besides `except`. */
async function stillWorking(tx: DbOrTx, brainstorm: Brainstorm, stage: StageKey, except: string): Promise<number> {
  const rows = await tx
    .select({ id: runs.id })
    .from(runs)
    .where(
      and(
        eq(runs.roomId, brainstorm.roomId),
        inArray(runs.status, ["queued", "running"]),
        ne(runs.id, except),
        sql`${runs.purpose}->>'kind' = 'brainstorm'`,
        sql`${runs.purpose}->>'brainstormId' = ${brainstorm.id}`,
        sql`${runs.purpose}->>'stage' = ${stage}`,
      ),
    );
  return rows.length;
}

/**
 * Moves a brainstorm on when one of its stage runs ends, in the write that ends the run: the
 * next persona of a sequential stage is queued; once all the stage's runs have ended, its
 * artifact is measured — short of what it must hold, the stage runs once more with the
 * shortfall named (a timed-out stage does not), fewer than three candidates send the process
 * back to divergent thinking once — and the stage ends, done or short, and the next phase starts.
 */
export async function advanceBrainstorm(tx: DbOrTx, emit: Emit, run: Run, at: Date): Promise<void> {
  const purpose = run.purpose;
  if (purpose?.kind !== "brainstorm") return;
  const brainstorm = await lockBrainstorm(tx, purpose.brainstormId);
  if (!brainstorm || FINISHED.has(brainstorm.status)) return;
  const { stage } = purpose;
  const state = brainstorm.stages[stage];
  // A run of an earlier pass, or of a stage no longer running (a timed-out one's stragglers), changes nothing.
  if (state.status !== "running" || state.passes !== purpose.pass) return;
  const team = await tx.select().from(agents).where(eq(agents.roomId, brainstorm.roomId));
  const step: BrainstormStep = { tx, emit, at, team };
  const definition = stageDefinition(stage);
  const agent = team.find((each) => each.id === run.agentId);

  if (definition.order === "sequential" && !state.timedOut && agent) {
    const later = definition.personas.slice(definition.personas.indexOf(agent.persona) + 1);
    if (!purpose.rerun && later[0]) {
      await queueStageRun(step, brainstorm, stage, later[0], { rerun: false, parentRunId: run.id });
      return;
    }
    // Asked again, the personas still short work in their order too, each after the one before has added its part.
    if (purpose.rerun && later.length) {
      const { measure } = await measureNow(step, brainstorm, stage);
      const next = later.find((persona) => measure.shortAgents.includes(member(step, persona).id));
      if (next) {
        await queueStageRun(step, brainstorm, stage, next, {
          rerun: true,
          shortfall: shortfallFor(definition, measure, member(step, next)),
          parentRunId: run.id,
        });
        return;
      }
    }
  }
  if ((await stillWorking(tx, brainstorm, stage, run.id)) > 0) return;
  await endStage(step, brainstorm, stage, run.id);
}

/** The stage's artifact as it stands, measured for the pass under way. */
async function measureNow(step: BrainstormStep, brainstorm: Brainstorm, stage: StageKey) {
  const definition = stageDefinition(stage);
  const work = await readWork(step.tx, brainstorm.id);
  const stageTeam = step.team.filter((member) => definition.personas.includes(member.persona));
  const measure = measureStage(stage, work, {
    pass: brainstorm.stages[stage].passes,
    team: stageTeam,
    inPlay: candidatesInPlay(brainstorm, stage, work),
  });
  return { work, stageTeam, measure };
}

/** What an agent asked again is told is missing: in a stage worked alone, its own part only. */
function shortfallFor(definition: StageDefinition, measure: StageMeasure, agent: Agent): string | null {
  return definition.isolated ? (measure.ownShortfalls?.[agent.id] ?? null) : measure.shortfall;
}

/**
 * Measures a stage whose runs have all ended and decides what follows. Also called for a stage
 * whose time ran out with no run left to end it.
 */
export async function endStage(
  step: BrainstormStep,
  brainstorm: Brainstorm,
  stage: StageKey,
  parentRunId: string | null,
): Promise<Brainstorm> {
  const state = brainstorm.stages[stage];
  const definition = stageDefinition(stage);
  const { work, stageTeam, measure } = await measureNow(step, brainstorm, stage);

  const ideatorsHaveRoom = step.team.some(
    (agent) => stageDefinition("divergent").personas.includes(agent.persona) && ideasLeft(work, agent) > 0,
  );
  if (
    stage === "convergent" &&
    work.candidates.length < TOO_FEW_CANDIDATES &&
    brainstorm.returnedToDivergent === 0 &&
    !state.timedOut &&
    ideatorsHaveRoom
  ) {
    const reason = `Only ${work.candidates.length} candidate${work.candidates.length === 1 ? "" : "s"}: back to divergent thinking for more ideas.`;
    const back = await saveBrainstorm(step, brainstorm, {
      returnedToDivergent: 1,
      stages: withStage(brainstorm, stage, {
        status: "pending",
        count: work.candidates.length,
        shortfall: reason,
        endedAt: step.at.toISOString(),
      }),
    });
    await announceStage(step, back, stage, work);
    return enterStage(step, back, "divergent", parentRunId, reason);
  }

  if (measure.shortfall && !state.rerun && !state.timedOut) {
    const again = await saveBrainstorm(step, brainstorm, {
      stages: withStage(brainstorm, stage, { rerun: true, count: measure.count, shortfall: measure.shortfall }),
    });
    const short = new Set(stageTeam.filter((member) => measure.shortAgents.includes(member.id)).map((member) => member.persona));
    const who = short.size
      ? definition.personas.filter((persona) => short.has(persona))
      : definition.order === "sequential"
        ? definition.personas.slice(-1)
        : definition.personas;
    // A sequential stage's personas are asked again in their order: the first now, the next once it has ended.
    for (const persona of definition.order === "sequential" ? who.slice(0, 1) : who) {
      await queueStageRun(step, again, stage, persona, {
        rerun: true,
        shortfall: shortfallFor(definition, measure, member(step, persona)),
        parentRunId,
      });
    }
    await announceStage(step, again, stage, work);
    return again;
  }

  let change: Partial<Brainstorm> = {};
  let shortfall = measure.shortfall;
  if (stage === "presentation") {
    // Without the Narrator's deliverable, Parley writes one from the artifacts, and says so.
    const deliverable = work.deliverable ?? composeDeliverable(brainstorm, work);
    change = { deliverable };
    if (!work.deliverable) shortfall = `${measure.shortfall} Parley assembled the deliverable from the artifacts.`;
  }
  const ended = await saveBrainstorm(step, brainstorm, {
    ...change,
    stages: withStage(brainstorm, stage, {
      status: shortfall ? "short" : "done",
      count: measure.count,
      shortfall: shortfall ?? (state.timedOut ? "Stopped at its time limit." : null),
      endedAt: step.at.toISOString(),
    }),
  });
  await announceStage(step, ended, stage, work);
  if (stage === "divergent") {
    // The ideas were each ideator's alone until now: all are released at once.
    step.emit({
      type: "brainstorm.ideas_released",
      actor: BRAINSTORM_AUTHOR,
      correlationId: brainstorm.correlationId,
      payload: {
        brainstormId: brainstorm.id,
        ideas: work.ideas.map((idea) => ({ id: idea.id, title: idea.title, agentName: idea.agentName, nodeId: idea.nodeId })),
      },
    });
    // The ideators may be reached again: what people sent them meanwhile is delivered.
    await followUpHeldMessages(step, brainstorm.roomId);
  }
  return continueAfter(step, ended, stage, parentRunId);
}
