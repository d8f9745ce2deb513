import { and, asc, desc, eq, ilike, or, sql } from "drizzle-orm";
import { z } from "zod";
import type { Db } from "@/db";
import { agents, rooms } from "@/db/schema";
import { badRequest } from "@/lib/errors";
import { limitSchema } from "@/lib/paging/keyset-page";
import { likePattern } from "@/lib/rooms/list-rooms-for-admin";

export const adminAgentsQuerySchema = z.strictObject({
  /** Agents whose name contains this (any case), or whose id it is. */
  q: z.string().trim().min(1).max(120).optional(),
  /** Only this room's agents. */
  room: z.string().min(1).max(64).optional(),
  limit: limitSchema(8, 50),
});
export type AdminAgentsQuery = z.infer<typeof adminAgentsQuerySchema>;

/** An agent as the dashboard's agent picker offers it: who, and in which room. */
export interface AdminAgentMatch {
  id: string;
  name: string;
  persona: string;
  color: string;
  model: string;
  roomId: string;
  roomTitle: string;
}

/**
 * Agents across the instance (or in one room) whose name holds `q` or whose id it is, by name and
 * then by their rooms' latest activity, `limit` of them: an instance may have thousands, so the
 * picker asks as the admin types rather than loading them all.
 */
export async function findAgentsForAdmin(db: Db, query: Partial<AdminAgentsQuery> = {}): Promise<AdminAgentMatch[]> {
  return db
    .select({
      id: agents.id,
      name: agents.name,
      persona: agents.persona,
      color: agents.color,
      model: agents.model,
      roomId: agents.roomId,
      roomTitle: rooms.title,
    })
    .from(agents)
    .innerJoin(rooms, eq(rooms.id, agents.roomId))
    .where(
      and(
        query.q ? or(eq(agents.id, query.q), ilike(agents.name, likePattern(query.q))) : undefined,
        query.room ? eq(agents.roomId, query.room) : undefined,
      ),
    )
    .orderBy(asc(sql`lower(${agents.name})`), desc(rooms.lastActivityAt), asc(agents.id))
    .limit(query.limit ?? 8);
}

/**
 * The agents a runs filter names: the agent with that id, or every agent of that name (any case)
 * across the instance, or in `room` when one is given. Naming none is a 400 that says so.
 */
export async function agentsNamed(db: Db, agent: string, room?: string): Promise<string[]> {
  const rows = await db
    .select({ id: agents.id })
    .from(agents)
    .where(and(or(eq(agents.id, agent), sql`lower(${agents.name}) = lower(${agent})`), room ? eq(agents.roomId, room) : undefined));
  if (rows.length === 0) throw badRequest(`agent: no agent has the id or name "${agent}"${room ? " in this room" : " on this instance"}.`);
  return rows.map((row) => row.id);
}
