import { desc } from "drizzle-orm";
import type { Database } from "@/db";
import { rooms } from "@/db/schema";
import type { RoomSummaryDto } from "@/lib/protocol";
import { countPresence } from "@/lib/realtime/presence";
import { roomToDto } from "./dto";
import { type RoomSettings, parseRoomSettings } from "./room-settings";

export interface AdminRoom extends RoomSummaryDto {
  settings: RoomSettings;
  watching: number;
}

export async function listRoomsForAdmin(database: Database): Promise<AdminRoom[]> {
  const rows = await database.db.select().from(rooms).orderBy(desc(rooms.lastActivityAt)).limit(500);
  const watching = await countPresence(
    database,
    rows.map((row) => row.id),
  );
  return rows.map((row) => ({
    ...roomToDto(row),
    settings: parseRoomSettings(row.settings),
    watching: watching.get(row.id) ?? 0,
  }));
}
