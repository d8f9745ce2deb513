import { asc, eq } from "drizzle-orm";
import type { Database } from "@/db";
import { type Agent, type Broadcast, type BroadcastStatus, type ReusedAnswer, broadcastResponses, broadcasts } from "@/db/schema";
import type { CarriedChanges } from "@/lib/events/write-room-events";
import { writeRoomEvents } from "@/lib/events/write-room-events";
import type { ModelCallPolicy } from "@/lib/agents/run-context";
import type { ModelResolver } from "@/lib/models/registry";
import type { RoomBus } from "@/lib/realtime/bus";
import { ACTIVE_STATUSES, type BroadcastOutcome, closeBroadcast } from "./close-broadcast";

// What ask_others takes and gives, and how one of its questions ends: shared by the agents
// mode (ask-agents.ts), the human mode (ask-human.ts) and the call itself (ask-others.ts).

export interface AskOthersDeps {
  database: Database;
  bus: RoomBus;
  resolveModel: ModelResolver;
  /** How the shadows' model calls are retried and timed out (as the asking run's are). */
  modelCallPolicy?: ModelCallPolicy;
  /** Fallback poll while waiting for a person (notifications wake it sooner). */
  pollMs?: number;
}

export interface AskOthersInput {
  roomId: string;
  asker: Agent;
  runId: string | null;
  correlationId: string;
  question: string;
  /** Names, personas or ids of the agents to ask; everyone else when omitted. */
  targetAgents?: string[];
  /** Answer choices shown to people as buttons. */
  options?: string[];
  /**
   * Names the call (for a tool call: its run, step and arguments). A call made again under the
   * same key asks nothing new: it carries on with the question the first one asked.
   */
  idempotencyKey?: string;
  /** Changes the asking run's first write carries (its model calls not yet written). */
  carry?: CarriedChanges;
  /**
   * Aborted when the asker stops waiting. A question of a run is then left to the run: an
   * attempt that takes the run over carries on with it, and the run's end cancels it.
   */
  signal?: AbortSignal;
}

export interface BroadcastAnswer {
  responder_id: string;
  responder_name: string;
  content: string;
  is_human: boolean;
}

/** What ask_others returns to the asking agent. */
export type AskOthersResult =
  | {
      status: "complete" | "timeout" | "skipped" | "cancelled";
      responses: BroadcastAnswer[];
      /**
       * Why answers the asker might expect are missing: a spent budget kept the other agents
       * from answering, or nobody in the room answered in time.
       */
      note?: string;
    }
  | {
      /** A person already answered the same question: that answer, not a new prompt. */
      status: "reused";
      responses: BroadcastAnswer[];
      earlier_answer: { question: string; asked_by: string; answered_by: string; answered_at: string };
      note: string;
    };

export function actorOf(agent: Pick<Agent, "id" | "name">) {
  return { id: agent.id, name: agent.name };
}

/* ───────────── how a question ends ───────────── */

/** Ends a question with its asker's outcome; false when it had already ended. */
export async function closeQuestion(
  deps: AskOthersDeps,
  input: AskOthersInput,
  broadcast: Broadcast,
  status: BroadcastOutcome,
): Promise<boolean> {
  const { result } = await writeRoomEvents(deps.database.db, input.roomId, (tx, emit, at) =>
    closeBroadcast(tx, emit, broadcast, status, at, actorOf(input.asker)),
  );
  return result === true;
}

/**
 * Ends a question as its asker's wait ended: answered, out of time, or stopped. A run's
 * question is not cancelled when its asker stops (its run was stopped): an attempt that takes
 * the run over carries on with it, and the run's end cancels it. False when not ended here.
 */
export async function endQuestion(
  deps: AskOthersDeps,
  input: AskOthersInput,
  broadcast: Broadcast,
  status: "complete" | "timeout" | "cancelled",
): Promise<boolean> {
  if (status === "cancelled" && input.runId) return false;
  return closeQuestion(deps, input, broadcast, status);
}

/** How the room saw a question end, as ask_others reports it. */
function reportedStatus(status: BroadcastStatus | undefined): "complete" | "timeout" | "skipped" | "cancelled" {
  if (status === "complete" || status === "skipped" || status === "cancelled") return status;
  // Still waiting for answers: its asker stopped and left it to its run.
  if (status && ACTIVE_STATUSES.includes(status)) return "cancelled";
  // Questions from before answers were reused by question were returned without being asked.
  if (status === "deferred") return "skipped";
  return "timeout";
}

export async function outcomeInRoom(deps: AskOthersDeps, broadcastId: string): Promise<"complete" | "timeout" | "skipped" | "cancelled"> {
  const [row] = await deps.database.db.select({ status: broadcasts.status }).from(broadcasts).where(eq(broadcasts.id, broadcastId));
  return reportedStatus(row?.status);
}

/** What the asker is told when a person's earlier answer to the same question is given instead of asking. */
function reusedResult(earlier: ReusedAnswer): AskOthersResult {
  return {
    status: "reused",
    responses: [{ responder_id: "human", responder_name: earlier.answeredBy, content: earlier.answer, is_human: true }],
    earlier_answer: {
      question: earlier.question,
      asked_by: earlier.askedBy,
      answered_by: earlier.answeredBy,
      answered_at: earlier.answeredAt,
    },
    note:
      `The room was not asked again: ${earlier.answeredBy} answered the same question at ${earlier.answeredAt}, ` +
      `when ${earlier.askedBy} asked “${earlier.question}”. ` +
      "That answer is given here. The people can still ask for a fresh answer, which reaches you as a note.",
  };
}

/** What the asker of a question nobody answered is told. */
function nobodyAnswered(row: Pick<Broadcast, "openedAt" | "deadlineAt">): string {
  const waited =
    row.openedAt && row.deadlineAt
      ? `within ${Math.round((row.deadlineAt.getTime() - row.openedAt.getTime()) / 1000)} s`
      : "before its time ran out (it was still waiting its turn behind other questions)";
  return `Nobody in the room answered your question ${waited}. Carry on without an answer, using your own judgement.`;
}

/** What a question got, as ask_others reports it: the outcome the room sees and the answers stored. */
export async function outcomeOf(deps: AskOthersDeps, broadcast: Broadcast): Promise<AskOthersResult> {
  const db = deps.database.db;
  const [[row], responses] = await Promise.all([
    db.select().from(broadcasts).where(eq(broadcasts.id, broadcast.id)),
    db.select().from(broadcastResponses).where(eq(broadcastResponses.broadcastId, broadcast.id)).orderBy(asc(broadcastResponses.createdAt)),
  ]);
  if (row?.status === "reused" && row.reusedAnswer) return reusedResult(row.reusedAnswer);
  const status = reportedStatus(row?.status);
  return {
    status,
    responses: responses.map((response) => ({
      responder_id: response.isHuman ? "human" : response.responderName,
      responder_name: response.responderName,
      content: response.content,
      is_human: response.isHuman,
    })),
    ...(status === "timeout" && row?.mode === "human" && responses.length === 0 ? { note: nobodyAnswered(row) } : {}),
  };
}
