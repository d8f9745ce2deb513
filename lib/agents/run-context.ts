import type { Database } from "@/db";
import type { Agent, Run } from "@/db/schema";
import type { CanvasAuthor } from "@/lib/canvas/author";
import type { ModelResolver } from "@/lib/models/registry";
import type { RoomBus } from "@/lib/realtime/bus";
import type { LimitReachedPayload } from "@/lib/protocol";
import type { RoomSettings } from "@/lib/rooms/room-settings";
import type { PendingModelCalls } from "./record-model-call";

export interface ModelCallPolicy {
  /** The waits before each retry of a call that failed for a passing reason. */
  retryDelaysMs: readonly number[];
  /** How long a call may wait for its provider before it times out. */
  timeoutMs: number;
}

/** What a running agent's tools can reach. */
export interface ActiveRun {
  database: Database;
  bus: RoomBus;
  run: Run;
  agent: Agent;
  /**
   * The agents this run may reach and name (request targets, ask_others responders, its team
   * list): the room's agents, less those working alone in a brainstorm's divergent stage; only
   * itself when it is one of them.
   */
  team: Agent[];
  /** It is a divergent thinker working alone: it sees only its own work and the framing. */
  isolated?: boolean;
  settings: RoomSettings;
  author: CanvasAuthor;
  now: () => Date;
  /** The run's model calls not yet written: every write the run makes carries them. */
  modelCalls: PendingModelCalls;
  /** Resolves other agents' models (their shadows answer broadcasts). */
  resolveModel: ModelResolver;
  /** How model calls made for the run (its own, its question's shadows) are retried and timed out. */
  modelCallPolicy?: ModelCallPolicy;
  /** The run's journal as its tools and guards see it: the allowances they spend, the step's calls, why the run stops. */
  state: RunState;
}

/** The part of a run's journal (`RunJournal`) its tools and limits read and change. */
export interface RunState {
  requestsMade: number;
  /** Help requests (request_help) made so far; they have an allowance of their own. */
  helpRequested: number;
  createdNodeIds: string[];
  /** The step being taken (counted over all the run's attempts). */
  readonly step: number;
  /** How many times each distinct call (tool and arguments) was made in this step so far. */
  readonly callsThisStep: Map<string, number>;
  /** The same over the whole run (all its attempts' saved steps): the repeated-call guard's count. */
  readonly callsThisRun: Map<string, number>;
  /** A loop guard stopped the run: it ends, with this reason, once the current step is saved. */
  stop: LimitReachedPayload | null;
}

export function agentAuthor(agent: Pick<Agent, "id" | "name">): CanvasAuthor {
  return { kind: "agent", id: agent.id, name: agent.name };
}
