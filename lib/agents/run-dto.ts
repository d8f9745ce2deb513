import type { Run } from "@/db/schema";
import { type RunDto, readErrorDetails } from "@/lib/protocol";

export function runToDto(run: Run): RunDto {
  return {
    id: run.id,
    agentId: run.agentId,
    status: run.status,
    trigger: run.trigger,
    requestedBy: run.requestedBy,
    prompt: run.prompt,
    parentRunId: run.parentRunId,
    chainDepth: run.chainDepth,
    correlationId: run.correlationId,
    selectedNodeIds: run.selectedNodeIds,
    requestEntryId: run.requestEntryId,
    attempts: run.attempts,
    steps: run.steps,
    inputTokens: run.inputTokens,
    outputTokens: run.outputTokens,
    costUsd: run.costUsd,
    error: readErrorDetails(run.error),
    createdAt: run.createdAt.toISOString(),
    startedAt: run.startedAt?.toISOString() ?? null,
    finishedAt: run.finishedAt?.toISOString() ?? null,
  };
}
