import { and, asc, desc, eq, ilike, inArray, lt, sql } from "drizzle-orm";
import { z } from "zod";
import type { Database, Db } from "@/db";
import { agents, rooms, runs } from "@/db/schema";
import { keysetCursorSchema } from "@/lib/paging/keyset-cursor";
import { type Page, exactTime, keysetPage, limitSchema } from "@/lib/paging/keyset-page";
import { getEnv } from "@/lib/env";
import { notFound } from "@/lib/errors";
import { type Allowance, roomDailyLimits } from "@/lib/limits/budget";
import { type Spend, dailyAllowances, readSpend } from "@/lib/usage/read-spend";
import type { AgentDto, RoomSummaryDto } from "@/lib/protocol";
import { countPresence } from "@/lib/realtime/presence";
import { roomToDto } from "./dto";
import { type RoomSettings, parseRoomSettings } from "./room-settings";
import { agentWithAvailability } from "./update-agent";

/** A room as the dashboard lists it. */
export interface AdminRoom extends RoomSummaryDto {
  settings: RoomSettings;
  watching: number;
  /** Runs queued or running now. */
  activeRuns: number;
  /** Its agents, each with its model and why that model cannot run here, if it cannot. */
  agents: AgentDto[];
}

const DAY = 24 * 3_600_000;

export const adminRoomsQuerySchema = z.strictObject({
  /** Rooms whose title contains this (any case). */
  q: z.string().trim().min(1).max(120).optional(),
  /** Only rooms with no activity for more than this many days. */
  idle_days: z.coerce.number().int().min(1, "idle_days must be at least 1").max(3650).optional(),
  cursor: keysetCursorSchema.optional(),
  limit: limitSchema(20),
});
export type AdminRoomsQuery = z.infer<typeof adminRoomsQuerySchema>;

/** Characters that mean something to LIKE, taken literally. */
export function likePattern(text: string): string {
  return `%${text.replace(/[\\%_]/g, (character) => `\\${character}`)}%`;
}

/** Rooms by latest activity, newest first, a page at a time, each with its agents, watchers and active runs. */
export async function listRoomsForAdmin(
  database: Database,
  query: Partial<AdminRoomsQuery> = {},
  now: Date = new Date(),
): Promise<Page<AdminRoom>> {
  const db = database.db;
  const limit = query.limit ?? 20;
  const rows = await db
    .select({ room: rooms, cursorAt: exactTime(rooms.lastActivityAt) })
    .from(rooms)
    .where(
      and(
        query.q ? ilike(rooms.title, likePattern(query.q)) : undefined,
        query.idle_days ? lt(rooms.lastActivityAt, new Date(now.getTime() - query.idle_days * DAY)) : undefined,
        query.cursor ? sql`(${rooms.lastActivityAt}, ${rooms.id}) < (${query.cursor.at}::timestamptz, ${query.cursor.id})` : undefined,
      ),
    )
    .orderBy(desc(rooms.lastActivityAt), desc(rooms.id))
    .limit(limit + 1);
  const shown = rows.slice(0, limit).map((row) => row.room);
  const details = await roomDetails(
    database,
    shown.map((room) => room.id),
  );
  return keysetPage(
    rows,
    limit,
    ({ room }) => ({
      ...roomToDto(room),
      settings: parseRoomSettings(room.settings),
      watching: details.watching.get(room.id) ?? 0,
      activeRuns: details.activeRuns.get(room.id) ?? 0,
      agents: details.agents.get(room.id) ?? [],
    }),
    (row) => ({ at: row.cursorAt, id: row.room.id }),
  );
}

/** For a page of rooms: their agents, their watchers and their active runs, three queries whatever the page's size. */
async function roomDetails(database: Database, roomIds: string[]) {
  const db = database.db;
  if (roomIds.length === 0)
    return { agents: new Map<string, AgentDto[]>(), watching: new Map<string, number>(), activeRuns: new Map<string, number>() };
  const [agentRows, watching, active] = await Promise.all([
    db.select().from(agents).where(inArray(agents.roomId, roomIds)).orderBy(asc(agents.roomId), asc(agents.position)),
    countPresence(database, roomIds),
    db
      .select({ roomId: runs.roomId, count: sql<number>`count(*)::int` })
      .from(runs)
      .where(and(inArray(runs.roomId, roomIds), inArray(runs.status, ["queued", "running"])))
      .groupBy(runs.roomId),
  ]);
  const byRoom = new Map<string, AgentDto[]>();
  const env = getEnv();
  for (const agent of agentRows) byRoom.set(agent.roomId, [...(byRoom.get(agent.roomId) ?? []), agentWithAvailability(agent, env)]);
  return { agents: byRoom, watching, activeRuns: new Map(active.map((row) => [row.roomId, Number(row.count)])) };
}

/** An agent as the dashboard edits it: its system prompt and its own endpoint settings beside its model. */
export interface AdminAgent extends AgentDto {
  identity: string;
  systemPrompt: string;
  /** The variable its key is read from, when it names its own (never the key). */
  apiKeyEnv: string | null;
}

export interface AdminRoomDetail extends Omit<AdminRoom, "agents"> {
  agents: AdminAgent[];
  /** What the room's agents spent today and this week (UTC), and what its daily budgets leave today. */
  spend: { today: Spend; week: Spend; daily: { tokens: Allowance; costUsd: Allowance } };
  /** Its runs by status, and what they spent. */
  runs: {
    queued: number;
    running: number;
    succeeded: number;
    failed: number;
    cancelled: number;
    inputTokens: number;
    outputTokens: number;
    costUsd: number;
  };
}

/** One room for the dashboard: settings, agents with their models and system prompts, watchers, runs and spending. */
export async function readRoomForAdmin(database: Database, roomId: string): Promise<AdminRoomDetail> {
  const db: Db = database.db;
  const [[room], agentRows, watching, runTotals, spent] = await Promise.all([
    db.select().from(rooms).where(eq(rooms.id, roomId)),
    db.select().from(agents).where(eq(agents.roomId, roomId)).orderBy(asc(agents.position)),
    countPresence(database, [roomId]),
    db
      .select({
        status: runs.status,
        count: sql<number>`count(*)::int`,
        inputTokens: sql<number>`coalesce(sum(${runs.inputTokens}), 0)::float8`,
        outputTokens: sql<number>`coalesce(sum(${runs.outputTokens}), 0)::float8`,
        costUsd: sql<number>`coalesce(sum(${runs.costUsd}), 0)::float8`,
      })
      .from(runs)
      .where(eq(runs.roomId, roomId))
      .groupBy(runs.status),
    readSpend(db, new Date(), roomId),
  ]);
  if (!room) throw notFound("Room");
  const env = getEnv();
  const settings = parseRoomSettings(room.settings);
  const of = (status: string) => Number(runTotals.find((row) => row.status === status)?.count ?? 0);
  const sum = (pick: (row: (typeof runTotals)[number]) => number) => runTotals.reduce((total, row) => total + Number(pick(row)), 0);
  return {
    ...roomToDto(room),
    settings,
    watching: watching.get(roomId) ?? 0,
    activeRuns: of("queued") + of("running"),
    spend: { ...spent, daily: dailyAllowances(roomDailyLimits(settings, env), spent.today) },
    agents: agentRows.map((agent) => ({
      ...agentWithAvailability(agent, env),
      identity: agent.identity,
      systemPrompt: agent.systemPrompt,
      apiKeyEnv: agent.modelOptions?.apiKeyEnv ?? null,
    })),
    runs: {
      queued: of("queued"),
      running: of("running"),
      succeeded: of("succeeded"),
      failed: of("failed"),
      cancelled: of("cancelled"),
      inputTokens: sum((row) => row.inputTokens),
      outputTokens: sum((row) => row.outputTokens),
      costUsd: sum((row) => row.costUsd),
    },
  };
}
