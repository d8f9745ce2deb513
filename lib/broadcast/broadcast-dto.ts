import type { Broadcast, BroadcastResponse } from "@/db/schema";
import type { BroadcastDto, BroadcastResponseDto } from "@/lib/protocol";

export function broadcastToDto(row: Broadcast): BroadcastDto {
  return {
    id: row.id,
    agentId: row.agentId,
    agentName: row.agentName,
    runId: row.runId,
    mode: row.mode,
    question: row.question,
    targetAgentIds: row.targetAgentIds,
    options: row.options,
    status: row.status,
    deadlineAt: row.deadlineAt?.toISOString() ?? null,
    createdAt: row.createdAt.toISOString(),
    openedAt: row.openedAt?.toISOString() ?? null,
    closedAt: row.closedAt?.toISOString() ?? null,
    reusedAnswer: row.reusedAnswer,
    askedAgainOf: row.askedAgainOf,
  };
}

export function responseToDto(row: BroadcastResponse): BroadcastResponseDto {
  return {
    id: row.id,
    broadcastId: row.broadcastId,
    responderId: row.responderId,
    responderName: row.responderName,
    isHuman: row.isHuman,
    content: row.content,
    durationMs: row.durationMs,
    inputTokens: row.inputTokens,
    outputTokens: row.outputTokens,
    costUsd: row.costUsd,
    createdAt: row.createdAt.toISOString(),
  };
}
