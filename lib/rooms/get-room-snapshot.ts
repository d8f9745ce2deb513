import { and, asc, desc, eq, gt, inArray, isNotNull, isNull, or, sql } from "drizzle-orm";
import type { Db, Tx } from "@/db";
import {
  agentNotes,
  boardEntries,
  broadcastResponses,
  broadcasts,
  buildReviews,
  canvasEdges,
  canvasNodes,
  events,
  type Run,
  runSteps,
  runs,
} from "@/db/schema";
import { type FindingDto, findingToDto } from "@/lib/findings/finding-dto";
import { broadcastToDto, responseToDto } from "@/lib/broadcast/broadcast-dto";
import { runToDto } from "@/lib/agents/run-dto";
import { lastRunTimes } from "@/lib/agents/last-run-times";
import { boardEntryToDto } from "@/lib/board/board-dto";
import { modelUnavailableReason } from "@/lib/models/registry";
import { notFound } from "@/lib/errors";
import { eventFromRow } from "@/lib/events/event-row";
import type {
  AgentDto,
  BrainstormDto,
  BoardEntryDto,
  BroadcastDto,
  BroadcastResponseDto,
  BuildReviewDto,
  CanvasEdgeDto,
  CanvasNodeDto,
  CodeNodeDto,
  RoomBudgetDto,
  RoomSummaryDto,
  CommandDto,
  DialogueThreadDto,
  RunDto,
  StoredEvent,
} from "@/lib/protocol";
import { agentToDto, edgeToDto, nodeToDto, roomToDto } from "./dto";
import { findRoom, listAgentRows } from "./list-rooms";
import { type RoomSettings, parseRoomSettings } from "./room-settings";
import { templateTurnOrder } from "./templates";
import { latestBrainstorm } from "@/lib/brainstorm/brainstorm-dto";
import { reviewsInView } from "@/lib/build-review/review-dto";
import { openDialogueThreads } from "@/lib/dialogue/dialogue-dto";
import { readRoomBudget } from "@/lib/limits/budget";

/** A participant's message still waiting for its agent. */
export type PendingCommandDto = Pick<CommandDto, "id" | "agentId" | "senderId" | "senderName" | "text" | "createdAt">;

export interface RoomSnapshot {
  room: RoomSummaryDto;
  /** The seat of the person who created the room (see `createRoomForTask`); null for a room created without one. */
  ownerSeatId?: string | null;
  settings: RoomSettings;
  agents: AgentDto[];
  /** The personas the scheduler takes turns with, in the template's order (see `whoseTurn`). */
  turnOrder: string[];
  /** When the scheduler last took its turn, an agent started or the room found busy; null before its first. */
  lastScheduledAt: string | null;
  /** When each agent's latest run was queued, by agent id (never-run agents are absent): whose turn is next ranks by it. */
  lastRunAt: Record<string, string>;
  nodes: CanvasNodeDto[];
  edges: CanvasEdgeDto[];
  /** Runs that are queued or running, and the most recent finished ones. */
  runs: RunDto[];
  /** Live (unexpired) board entries, newest last. */
  board: BoardEntryDto[];
  /** The newest findings, oldest first. */
  findings: FindingDto[];
  /** Participants' messages not yet delivered, oldest first. */
  pendingCommands: PendingCommandDto[];
  /** Recent ask_others broadcasts and their answers. */
  broadcasts: BroadcastDto[];
  broadcastResponses: BroadcastResponseDto[];
  /** The room's latest brainstorm, where it stands (a Brainstorm room's). */
  brainstorm: BrainstormDto | null;
  /** The most recent events, oldest first, for the activity feed. */
  recentEvents: StoredEvent[];
  /** Every event up to and including this one is reflected above; stream from here. */
  lastSeq: number;
  /** The room's build review code nodes: the code version each shows, and its language. */
  codeNodes?: CodeNodeDto[];
  /** Build reviews under way and the latest one, oldest first, from their table (not the recent events). */
  reviews?: BuildReviewDto[];
  /** Dialogues under way, with their messages so far, from their table (not the recent events). */
  dialogues?: DialogueThreadDto[];
  /** What the room may still spend today; null when no budget applies (docs/behaviour/limits.md). */
  budget?: RoomBudgetDto | null;
}

const SNAPSHOT_FEED_SIZE = 200;
const RECENT_RUNS = 30;
const BOARD_ENTRIES = 200;
const RECENT_BROADCASTS = 50;
const FINDINGS = 200;

/**
 * Everything a page needs for its first paint, read in one transaction so that the
 * state and `lastSeq` agree: the live stream then continues exactly after `lastSeq`.
 */
export async function getRoomSnapshot(db: Db, roomId: string): Promise<RoomSnapshot> {
  return db.transaction(
    async (tx) => {
      const room = await findRoom(tx, roomId);
      if (!room) throw notFound("Room");
      const now = new Date();
      const [agentList, nodeRows, edgeRows, eventRows, runRows, boardRows, findingRows, pendingRows] = await Promise.all([
        listAgentRows(tx, roomId),
        tx.select().from(canvasNodes).where(eq(canvasNodes.roomId, roomId)).orderBy(asc(canvasNodes.createdAt)),
        tx.select().from(canvasEdges).where(eq(canvasEdges.roomId, roomId)).orderBy(asc(canvasEdges.createdAt)),
        tx.select().from(events).where(eq(events.roomId, roomId)).orderBy(desc(events.seq)).limit(SNAPSHOT_FEED_SIZE),
        tx.select().from(runs).where(eq(runs.roomId, roomId)).orderBy(desc(runs.createdAt)).limit(RECENT_RUNS),
        tx
          .select()
          .from(boardEntries)
          .where(and(eq(boardEntries.roomId, roomId), gt(boardEntries.expiresAt, now)))
          .orderBy(desc(boardEntries.createdAt))
          .limit(BOARD_ENTRIES),
        tx
          .select()
          .from(boardEntries)
          .where(and(eq(boardEntries.roomId, roomId), eq(boardEntries.kind, "finding")))
          .orderBy(desc(boardEntries.createdAt), desc(boardEntries.id))
          .limit(FINDINGS),
        tx
          .select()
          .from(agentNotes)
          .where(
            and(
              eq(agentNotes.roomId, roomId),
              eq(agentNotes.kind, "command"),
              isNull(agentNotes.deliveredAt),
              isNull(agentNotes.cancelledAt),
            ),
          )
          .orderBy(asc(agentNotes.createdAt), asc(agentNotes.ordinal)),
      ]);
      const active = await tx
        .select()
        .from(runs)
        .where(and(eq(runs.roomId, roomId), or(eq(runs.status, "queued"), eq(runs.status, "running"))));
      const broadcastRows = await tx
        .select()
        .from(broadcasts)
        .where(eq(broadcasts.roomId, roomId))
        .orderBy(desc(broadcasts.createdAt))
        .limit(RECENT_BROADCASTS);
      const responseRows = broadcastRows.length
        ? await tx
            .select()
            .from(broadcastResponses)
            .where(
              inArray(
                broadcastResponses.broadcastId,
                broadcastRows.map((row) => row.id),
              ),
            )
            .orderBy(asc(broadcastResponses.createdAt))
        : [];
      const lastRuns = await lastRunTimes(tx, roomId);
      const codeRows = await tx
        .select({
          nodeId: buildReviews.codeNodeId,
          reviewId: buildReviews.id,
          version: buildReviews.codeVersion,
          language: buildReviews.language,
        })
        .from(buildReviews)
        .where(and(eq(buildReviews.roomId, roomId), isNotNull(buildReviews.codeNodeId)));
      const stepTotals = await savedStepTotals(
        tx,
        active.map((run) => run.id),
      );
      // A run still under way counts what its saved steps used, as its `run.step` events do: a
      // call's usage reaches the run's row with the first write of its step (a note, say), which
      // can commit before the step's own event, and a page adds that event's figures when it arrives.
      const runMap = new Map([...runRows, ...active].map((run) => [run.id, { ...run, ...stepTotals.get(run.id) }]));
      return {
        room: roomToDto(room),
        ownerSeatId: room.ownerSeatId ?? null,
        settings: parseRoomSettings(room.settings),
        agents: agentList.map((agent) => ({
          ...agentToDto(agent),
          unavailableReason: modelUnavailableReason(agent.model, undefined, agent.modelOptions),
        })),
        nodes: nodeRows.map(nodeToDto),
        edges: edgeRows.map(edgeToDto),
        runs: [...runMap.values()].sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime()).map(runToDto),
        board: boardRows.reverse().map(boardEntryToDto),
        findings: findingRows.reverse().map(findingToDto),
        pendingCommands: pendingRows.map((note) => ({
          id: note.id,
          agentId: note.agentId,
          senderId: note.senderId ?? "",
          senderName: note.senderName ?? "Someone",
          text: note.text.replace(`${note.senderName} says: `, ""),
          createdAt: note.createdAt.toISOString(),
        })),
        broadcasts: broadcastRows.reverse().map(broadcastToDto),
        broadcastResponses: responseRows.map(responseToDto),
        recentEvents: eventRows.reverse().map(eventFromRow),
        brainstorm: await latestBrainstorm(tx, roomId, parseRoomSettings(room.settings)),
        turnOrder: templateTurnOrder(room.template),
        lastScheduledAt: room.lastScheduledAt?.toISOString() ?? null,
        lastRunAt: Object.fromEntries(Object.entries(lastRuns).map(([agentId, at]) => [agentId, new Date(at).toISOString()])),
        lastSeq: room.lastSeq,
        codeNodes: codeRows.map((row) => ({ ...row, nodeId: row.nodeId! })),
        reviews: await reviewsInView(tx, roomId),
        dialogues: await openDialogueThreads(tx, roomId),
        budget: await readRoomBudget(tx, roomId, parseRoomSettings(room.settings), now),
      };
    },
    { isolationLevel: "repeatable read", accessMode: "read only" },
  );
}

/** What each run's saved steps used, summed: the figures its `run.step` events carry. */
async function savedStepTotals(tx: Tx, runIds: string[]): Promise<Map<string, Pick<Run, "inputTokens" | "outputTokens" | "costUsd">>> {
  if (runIds.length === 0) return new Map();
  const rows = await tx
    .select({
      runId: runSteps.runId,
      inputTokens: sql<number>`coalesce(sum(${runSteps.inputTokens}), 0)`.mapWith(Number),
      outputTokens: sql<number>`coalesce(sum(${runSteps.outputTokens}), 0)`.mapWith(Number),
      costUsd: sql<number>`coalesce(sum(${runSteps.costUsd}), 0)`.mapWith(Number),
    })
    .from(runSteps)
    .where(inArray(runSteps.runId, runIds))
    .groupBy(runSteps.runId);
  const totals = new Map(rows.map(({ runId, ...figures }) => [runId, figures]));
  // A run with no saved step has used nothing its events show yet.
  for (const id of runIds) if (!totals.has(id)) totals.set(id, { inputTokens: 0, outputTokens: 0, costUsd: 0 });
  return totals;
}
