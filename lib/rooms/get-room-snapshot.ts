import { asc, desc, eq } from "drizzle-orm";
import type { Db } from "@/db";
import { canvasEdges, canvasNodes, events } from "@/db/schema";
import { notFound } from "@/lib/errors";
import { eventFromRow } from "@/lib/events/event-row";
import type { AgentDto, CanvasEdgeDto, CanvasNodeDto, RoomSummaryDto, StoredEvent } from "@/lib/protocol";
import { edgeToDto, nodeToDto, roomToDto } from "./dto";
import { findRoom, listAgents } from "./list-rooms";
import { type RoomSettings, parseRoomSettings } from "./room-settings";

export interface RoomSnapshot {
  room: RoomSummaryDto;
  settings: RoomSettings;
  agents: AgentDto[];
  nodes: CanvasNodeDto[];
  edges: CanvasEdgeDto[];
  /** The most recent events, oldest first, for the activity feed. */
  recentEvents: StoredEvent[];
  /** Every event up to and including this one is reflected above; stream from here. */
  lastSeq: number;
}

export const SNAPSHOT_FEED_SIZE = 200;

/**
 * Everything a page needs for its first paint, read in one transaction so that the
 * state and `lastSeq` agree: the live stream then continues exactly after `lastSeq`.
 */
export async function getRoomSnapshot(db: Db, roomId: string): Promise<RoomSnapshot> {
  return db.transaction(
    async (tx) => {
      const room = await findRoom(tx, roomId);
      if (!room) throw notFound("Room");
      const [agentList, nodeRows, edgeRows, eventRows] = await Promise.all([
        listAgents(tx, roomId),
        tx.select().from(canvasNodes).where(eq(canvasNodes.roomId, roomId)).orderBy(asc(canvasNodes.createdAt)),
        tx.select().from(canvasEdges).where(eq(canvasEdges.roomId, roomId)).orderBy(asc(canvasEdges.createdAt)),
        tx
          .select()
          .from(events)
          .where(eq(events.roomId, roomId))
          .orderBy(desc(events.seq))
          .limit(SNAPSHOT_FEED_SIZE),
      ]);
      return {
        room: roomToDto(room),
        settings: parseRoomSettings(room.settings),
        agents: agentList,
        nodes: nodeRows.map(nodeToDto),
        edges: edgeRows.map(edgeToDto),
        recentEvents: eventRows.reverse().map(eventFromRow),
        lastSeq: room.lastSeq,
      };
    },
    { isolationLevel: "repeatable read", accessMode: "read only" },
  );
}
