import type { BoardEntry } from "@/db/schema";
import type { BoardEntryDto } from "@/lib/protocol";

export function boardEntryToDto(entry: BoardEntry): BoardEntryDto {
  return {
    id: entry.id,
    runId: entry.runId,
    agentId: entry.agentId,
    agentName: entry.agentName,
    kind: entry.kind,
    content: entry.content,
    targetPersona: entry.targetPersona,
    requestStatus: entry.requestStatus,
    answersEntryId: entry.answersEntryId,
    expiresAt: entry.expiresAt?.toISOString() ?? null,
    createdAt: entry.createdAt.toISOString(),
  };
}
