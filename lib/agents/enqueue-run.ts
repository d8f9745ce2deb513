import { randomUUID } from "node:crypto";
import { sql } from "drizzle-orm";
import type { DbOrTx } from "@/db";
import { type Run, type RunPurpose, type RunTrigger, runs } from "@/db/schema";
import type { Actor, Emit } from "@/lib/events/write-room-events";
import { createCorrelationId } from "@/lib/protocol/correlation-id";
import type { WorkflowTaskData } from "./prompt-sections";
import { runToDto } from "./run-dto";

/** Workers LISTEN here so a queued run starts at once instead of at the next poll. */
export const RUNS_CHANNEL = "parley_runs";

export interface EnqueueRunInput {
  /** The run's id, when the caller must name it before the run is queued. */
  id?: string;
  roomId: string;
  agentId: string;
  trigger: RunTrigger;
  requestedBy: Actor;
  prompt: string;
  parentRunId?: string | null;
  chainDepth?: number;
  /** Runs of one workflow share it; a new workflow gets a fresh one. */
  correlationId?: string;
  selectedNodeIds?: string[];
  requestEntryId?: string | null;
  /** The part the run plays in a build review or a dialogue. */
  purpose?: RunPurpose | null;
  /** What a workflow asks of the run, as data beside `prompt`. */
  taskData?: WorkflowTaskData | null;
  at: Date;
}

/** Queues a run inside a room write and announces it (`run.queued`); workers are woken on commit. */
export async function enqueueRun(tx: DbOrTx, emit: Emit, input: EnqueueRunInput): Promise<Run> {
  const id = input.id ?? randomUUID();
  const queuedEventId = randomUUID();
  const correlationId =
    input.correlationId ?? createCorrelationId({ scope: `run-${input.roomId.slice(0, 8)}`, subject: input.prompt, now: input.at });
  const [run] = await tx
    .insert(runs)
    .values({
      id,
      roomId: input.roomId,
      agentId: input.agentId,
      status: "queued",
      trigger: input.trigger,
      requestedBy: input.requestedBy.id,
      prompt: input.prompt,
      parentRunId: input.parentRunId ?? null,
      causeEventId: queuedEventId,
      chainDepth: input.chainDepth ?? 0,
      correlationId,
      selectedNodeIds: input.selectedNodeIds ?? [],
      requestEntryId: input.requestEntryId ?? null,
      purpose: input.purpose ?? null,
      taskData: input.taskData ?? null,
      createdAt: input.at,
    })
    .returning();
  emit({
    id: queuedEventId,
    type: "run.queued",
    actor: input.requestedBy,
    targetAgent: input.agentId,
    correlationId,
    status: "pending",
    nextSteps: ["run.started"],
    payload: { run: runToDto(run!) },
  });
  await tx.execute(sql`select pg_notify(${RUNS_CHANNEL}, ${input.roomId})`);
  return run!;
}
