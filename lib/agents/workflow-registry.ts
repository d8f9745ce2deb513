import type { JSONObject } from "@ai-sdk/provider";
import type { ToolSet } from "ai";
import type { Db, DbOrTx } from "@/db";
import type { Agent, Run, RunPurpose } from "@/db/schema";
import type { Actor, Emit } from "@/lib/events/write-room-events";
import type { StoredEventType } from "@/lib/protocol";
import type { ActiveRun } from "./run-context";
import type { TurnOutcome } from "./turn-outcome";

/** Work held back from everyone but its authors: theirs since `since`. */
export interface HeldBack {
  agentIds: ReadonlySet<string>;
  since: Date;
}

/** How a workflow has agents work alone, and what it keeps from them and from the others meanwhile. */
export interface WorkingAlone {
  isolatedAgentIds(db: Db, roomId: string): Promise<Set<string>>;
  /** Refuses (409) what a person would send an agent working alone. */
  refuseWhileAlone(db: Db, roomId: string, agent: Pick<Agent, "id" | "name">): Promise<void>;
  /** Refuses, as an error the model reads, a question from or to an agent working alone. */
  refuseAskingWhileAlone(db: Db, roomId: string, asker: Pick<Agent, "id">, target: Pick<Agent, "id" | "name">): Promise<void>;
  /** Refuses, as an error the model reads, a change an agent working alone would make to another's node. */
  refuseChangingOthersNodesWhileAlone(db: Db, roomId: string, agent: Pick<Agent, "id" | "persona">, nodeId: string): Promise<void>;
  /** What those working alone did that the others may not see yet. */
  heldBackWork(db: Db, roomId: string): Promise<HeldBack | null>;
  /** What an agent working alone may see of the room's work, outside the workflow's own runs. */
  shownToAlone(db: Db, roomId: string, agentId: string): Promise<Shows>;
}

/** Whether a run may see a node, or an edge (no kind: the nodes it joins are checked on their own). */
export type Shows = (item: { authorId: string; kind?: string }) => boolean;

/** A titled part of a run's prompt a workflow adds; see `PromptContext.extraSections`. */
interface WorkflowPromptSection {
  title: string;
  lines: string[];
  required?: number;
  share?: number;
  /** Names the section whatever its title, for a model that reads the prompt as data. */
  key?: string;
  /** Each line's data (one per line, in order), handed over with the lines the budget keeps. */
  items?: JSONObject[];
}

/** What a workflow adds to the prompt of one of its runs. */
export interface WorkflowPromptContext {
  sections: WorkflowPromptSection[];
  /** Replaces the engine's canvas, collaboration and team-memory guidance. */
  guidance?: string;
  /** What the run may see of the room; everything when absent. */
  shows?: Shows;
}

/** The tools a workflow gives a run: `only` when the run is the workflow's own and takes no others but the team-memory tools. */
interface WorkflowTools {
  tools: ToolSet;
  only: boolean;
}

/** What moves a workflow on when one of its runs ends, in the write that ends it. */
export type RunEnded = (tx: DbOrTx, emit: Emit, run: Run, actor: Actor, outcome: TurnOutcome) => Promise<void>;

/** What a workflow's trace shows of a template's part in it (the build review or the brainstorm it is, its dialogues). */
export interface TracePart {
  /** How many of its parts are still open: the workflow is active while any is. */
  open: number;
  /**
   * Whether the workflow produced what it was started for (a brainstorm's deliverable, a review's verdict);
   * absent when the template has no say in it, and the answer of the workflow's first run decides.
   */
  finalOutput?: boolean;
  /** When its part ended; a workflow that is no longer active ends no earlier. */
  finishedAt?: Date | null;
}

/** How a workflow's trace reads a template's part in the room's workflows. */
export interface WorkflowTrace {
  /**
   * Events that report how one of its parts ended: an error among them is an outcome the
   * workflow may reach (a review not approved, a brainstorm stopped), not a failure.
   */
  outcomeEvents?: readonly StoredEventType[];
  /** Its part in each of `correlationIds` it has one in; the others are absent. */
  parts(db: Db, roomId: string, correlationIds: string[]): Promise<Map<string, TracePart>>;
}

/**
 * What a workflow template adds to the agent engine. The engine knows workflows only through
 * this: a module registers itself from the composition root (`lib/workflows/index.ts`).
 */
export interface WorkflowModule {
  name: string;
  /** The tools the module gives `active`'s run, or null when the run is none of its business. */
  tools?(active: ActiveRun): WorkflowTools | null;
  workingAlone?: WorkingAlone;
  /** What happens when a run with one of these purposes ends: each purpose belongs to one workflow. */
  runEnded?: Partial<Record<RunPurpose["kind"], RunEnded>>;
  /** Work the scheduler does on each pass (a brainstorm's stages past their time limit, say); its failures are reported, not thrown. */
  sweep?(db: Db): Promise<unknown>;
  /** What the workflow adds to `run`'s prompt, or null when the run is none of its business. */
  promptContext?(db: Db, input: { run: Run; agent: Agent; team: Agent[] }): Promise<WorkflowPromptContext | null>;
  /** How "why you were started" names the ids the workflow starts runs as (`requestedBy`). */
  requesters?: Record<string, string>;
  /** What happens when a run that is no workflow's step ends (a dialogue its words ask for, say). */
  freeRunEnded?: RunEnded;
  /** What a workflow's trace (its status, its end) reads of the template's part in it. */
  trace?: WorkflowTrace;
}

const modules = new Map<string, WorkflowModule>();

/** Adds a workflow to the engine (again under the same name: replaces it). */
export function registerWorkflow(module: WorkflowModule): void {
  modules.set(module.name, module);
}

export function registeredWorkflows(): WorkflowModule[] {
  return [...modules.values()];
}
