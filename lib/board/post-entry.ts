import { randomUUID } from "node:crypto";
import { and, eq } from "drizzle-orm";
import type { DbOrTx } from "@/db";
import { type BoardEntry, type RequestStatus, agents, boardEntries } from "@/db/schema";
import { badRequest } from "@/lib/errors";
import type { Actor, Emit } from "@/lib/events/write-room-events";
import { type BoardEntryKindName, boardContentSchemas } from "@/lib/protocol";
import { describeZodError } from "@/lib/http/request";
import { boardEntryToDto } from "./board-dto";

export interface PostEntryInput {
  roomId: string;
  kind: BoardEntryKindName;
  content: unknown;
  author: Actor & { agentId: string | null; runId: string | null };
  /** Null: the entry never expires (findings). */
  expiryMinutes: number | null;
  correlationId?: string;
  /** Requests start `open` (served by the scheduler) unless a run was queued for them. */
  requestStatus?: RequestStatus;
  at: Date;
}

/**
 * Validates and stores a board entry inside a room write, emitting `board.posted`.
 * Reactions must point at an entry that exists in the same room.
 */
export async function postBoardEntry(tx: DbOrTx, emit: Emit, input: PostEntryInput): Promise<BoardEntry> {
  const parsed = boardContentSchemas[input.kind].safeParse(input.content);
  if (!parsed.success) throw badRequest(`Invalid ${input.kind} content: ${describeZodError(parsed.error)}`);
  const content = parsed.data as Record<string, unknown>;

  let answersEntryId: string | null = null;
  if (input.kind === "reaction") {
    answersEntryId = String(content.toEntryId);
    const [target] = await tx
      .select({ id: boardEntries.id })
      .from(boardEntries)
      .where(and(eq(boardEntries.id, answersEntryId), eq(boardEntries.roomId, input.roomId)));
    if (!target) throw badRequest(`There is no board entry ${answersEntryId} to react to.`);
  }

  const [entry] = await tx
    .insert(boardEntries)
    .values({
      id: randomUUID(),
      roomId: input.roomId,
      runId: input.author.runId,
      agentId: input.author.agentId,
      agentName: input.author.name,
      kind: input.kind,
      content,
      targetPersona: input.kind === "request" ? String(content.targetPersona) : null,
      requestStatus: input.kind === "request" ? (input.requestStatus ?? "open") : null,
      answersEntryId,
      expiresAt: input.expiryMinutes === null ? null : new Date(input.at.getTime() + input.expiryMinutes * 60_000),
      createdAt: input.at,
    })
    .returning();
  // Whom a request is for, by agent id as every other event names its target; the entry keeps the persona it named.
  const [target] =
    input.kind === "request"
      ? await tx
          .select({ id: agents.id })
          .from(agents)
          .where(and(eq(agents.roomId, input.roomId), eq(agents.persona, String(content.targetPersona))))
      : [];
  emit({
    type: "board.posted",
    actor: input.author,
    correlationId: input.correlationId,
    targetAgent: target?.id ?? null,
    payload: { entry: boardEntryToDto(entry!) },
  });
  return entry!;
}

/** Moves a request along (queued, in progress, answered, …) and tells viewers. */
export async function setRequestStatus(
  tx: DbOrTx,
  emit: Emit,
  input: { roomId: string; entryId: string; status: RequestStatus; runId: string | null; actor: Actor; correlationId?: string },
): Promise<void> {
  const updated = await tx
    .update(boardEntries)
    .set({ requestStatus: input.status })
    .where(and(eq(boardEntries.id, input.entryId), eq(boardEntries.roomId, input.roomId)))
    .returning({ id: boardEntries.id });
  if (updated.length === 0) return;
  emit({
    type: "board.request_updated",
    actor: input.actor,
    correlationId: input.correlationId,
    payload: { entryId: input.entryId, status: input.status, runId: input.runId },
  });
}
