import { and, count, eq, gt, sql } from "drizzle-orm";
import type { Db } from "@/db";
import { type BoardEntry, boardEntries } from "@/db/schema";
import { postBoardEntry } from "@/lib/board/post-entry";
import { assertNodesInRoom } from "@/lib/canvas/nodes-in-room";
import { badRequest } from "@/lib/errors";
import { type Actor, type WriteRequestOptions, eventPayload, writeRoomEvents } from "@/lib/events/write-room-events";
import { type FindingSeverity, LIMITS } from "@/lib/protocol";
import type { RoomSettings } from "@/lib/rooms/room-settings";

export interface FindingInput {
  finding: string;
  severity: FindingSeverity;
  nodeIds?: string[];
}

export interface PostedFinding {
  entry: BoardEntry;
  /** True when the agent had posted the same finding lately: the earlier one is returned and nothing is written. */
  repeated: boolean;
}

/** What makes two findings the same: case, spacing and closing punctuation aside. */
function normaliseFinding(text: string): string {
  return text
    .toLowerCase()
    .replace(/\s+/g, " ")
    .trim()
    .replace(/[\s.!?…]+$/, "");
}

/** The finding's text as it will be stored, or a reason naming the limit. */
function checkFindingText(text: string): string {
  const trimmed = text.trim();
  if (!trimmed) throw badRequest("A finding needs text: say what you found in 1 to 1000 characters.");
  if (trimmed.length > LIMITS.findingText) {
    throw badRequest(
      `A finding may be at most ${LIMITS.findingText} characters; this one has ${trimmed.length}. Say the essential in fewer words.`,
    );
  }
  return trimmed;
}

/**
 * Posts a finding for the team on the room's board, where it stays as long as the room.
 * The same agent posting the same finding again within `finding_repeat_minutes` gets its
 * earlier one back and nothing is written; a run may post at most `max_high_findings_per_run`
 * high-severity findings. Both are checked under the room's lock, so parallel calls agree.
 */
export async function postFinding(
  db: Db,
  input: {
    roomId: string;
    run: { id: string; correlationId: string };
    agent: Actor;
    finding: FindingInput;
    settings: Pick<RoomSettings, "max_high_findings_per_run" | "finding_repeat_minutes">;
  },
  options: WriteRequestOptions = {},
): Promise<PostedFinding> {
  const text = checkFindingText(input.finding.finding);
  const { severity } = input.finding;
  const nodeIds = [...new Set(input.finding.nodeIds ?? [])];
  const { result, events } = await writeRoomEvents(
    db,
    input.roomId,
    async (tx, emit, at) => {
      const since = new Date(at.getTime() - input.settings.finding_repeat_minutes * 60_000);
      const recent = await tx
        .select()
        .from(boardEntries)
        .where(
          and(
            eq(boardEntries.roomId, input.roomId),
            eq(boardEntries.kind, "finding"),
            eq(boardEntries.agentId, input.agent.id),
            gt(boardEntries.createdAt, since),
          ),
        );
      const same = recent.find((entry) => normaliseFinding(String(entry.content.finding ?? "")) === normaliseFinding(text));
      if (same) return { entry: same, repeated: true };
      if (severity === "high") {
        const allowed = input.settings.max_high_findings_per_run;
        const [high] = await tx
          .select({ value: count() })
          .from(boardEntries)
          .where(
            and(
              eq(boardEntries.roomId, input.roomId),
              eq(boardEntries.kind, "finding"),
              eq(boardEntries.runId, input.run.id),
              sql`${boardEntries.content} ->> 'severity' = 'high'`,
            ),
          );
        if (Number(high?.value ?? 0) >= allowed) {
          throw badRequest(
            `This run has posted ${allowed} high-severity finding(s), the most a run may. ` +
              "Post this one as medium or low, or merge it into one of your earlier findings.",
          );
        }
      }
      await assertNodesInRoom(tx, input.roomId, nodeIds);
      const entry = await postBoardEntry(tx, emit, {
        roomId: input.roomId,
        kind: "finding",
        content: { finding: text, severity, nodeIds },
        author: { ...input.agent, agentId: input.agent.id, runId: input.run.id },
        expiryMinutes: null,
        correlationId: input.run.correlationId,
        at,
      });
      return { entry, repeated: false };
    },
    options.idempotencyKey
      ? {
          ...options,
          idempotencyKey: options.idempotencyKey,
          change: { type: "board.posted", request: { by: input.agent.id, finding: input.finding } },
        }
      : { ...options, idempotencyKey: undefined },
  );
  if (result) return result;
  // A step taken again after its worker died: the finding its first attempt posted.
  const [entry] = await db
    .select()
    .from(boardEntries)
    .where(eq(boardEntries.id, eventPayload(events, "board.posted").entry.id));
  return { entry: entry!, repeated: true };
}
