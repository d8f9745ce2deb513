import { asc, desc, eq, inArray } from "drizzle-orm";
import type { DbOrTx } from "@/db";
import { agents, rooms } from "@/db/schema";
import type { AgentDto, RoomSummaryDto } from "@/lib/protocol";
import { roomToDto } from "./dto";

export interface RoomListItem extends RoomSummaryDto {
  agents: Pick<AgentDto, "id" | "name" | "color">[];
}

/** Rooms by most recent activity, each with its agents. */
export async function listRooms(db: DbOrTx, limit = 100): Promise<RoomListItem[]> {
  const roomRows = await db.select().from(rooms).orderBy(desc(rooms.lastActivityAt)).limit(limit);
  if (roomRows.length === 0) return [];
  const agentRows = await db
    .select()
    .from(agents)
    .where(
      inArray(
        agents.roomId,
        roomRows.map((room) => room.id),
      ),
    )
    .orderBy(asc(agents.position));
  return roomRows.map((room) => ({
    ...roomToDto(room),
    agents: agentRows.filter((agent) => agent.roomId === room.id).map((agent) => ({ id: agent.id, name: agent.name, color: agent.color })),
  }));
}

export async function findRoom(db: DbOrTx, roomId: string) {
  const [room] = await db.select().from(rooms).where(eq(rooms.id, roomId));
  return room ?? null;
}

/** A room's agents as rows, with their model settings (for whether each can run). */
export async function listAgentRows(db: DbOrTx, roomId: string) {
  return db.select().from(agents).where(eq(agents.roomId, roomId)).orderBy(asc(agents.position));
}
