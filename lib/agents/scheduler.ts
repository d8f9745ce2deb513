import { and, eq, inArray, isNull, lte, or, sql } from "drizzle-orm";
import type { Database, Db, DbOrTx } from "@/db";
import { rowsOf } from "@/db/rows";
import { type Agent, type BoardEntry, type Run, agents, leases, rooms, runs } from "@/db/schema";
import { setRequestStatus } from "@/lib/board/post-entry";
import { sweepOverdueBroadcasts } from "@/lib/broadcast/end-orphaned-broadcasts";
import { oldestOpenRequest } from "@/lib/board/read-board";
import { type Emit, writeRoomEvents } from "@/lib/events/write-room-events";
import { spentToday } from "@/lib/limits/budget";
import { notifyEphemeral } from "@/lib/realtime/bus";
import { countPresence } from "@/lib/realtime/presence";
import { type RoomSettings, parseRoomSettings } from "@/lib/rooms/room-settings";
import { templateTurnOrder } from "@/lib/rooms/templates";
import { enqueueRun } from "./enqueue-run";
import { registeredWorkflows } from "./workflow-registry";
import { lastRunTimes } from "./last-run-times";
import { defaultPrompt } from "./start-agent-run";
import { whoseTurn } from "./whose-turn";

const SCHEDULER_ACTOR = { id: "scheduler", name: "Scheduler" };
const LEASE_NAME = "scheduler";

/**
 * Takes or keeps the scheduler lease: the row is claimed when free or expired, and renewed
 * by its holder. Only the holder schedules, so one instance schedules at a time.
 */
export async function electScheduler(db: Db, owner: string, ttlMs: number): Promise<boolean> {
  const rows = rowsOf<{ owner: string }>(
    await db.execute(sql`
      insert into ${leases} (name, owner, expires_at)
      values (${LEASE_NAME}, ${owner}, now() + ${ttlMs} * interval '1 millisecond')
      on conflict (name) do update
        set owner = excluded.owner, expires_at = excluded.expires_at
        where ${leases.expiresAt} < now() or ${leases.owner} = excluded.owner
      returning owner`),
  );
  return rows[0]?.owner === owner;
}

type ScheduleOutcome =
  | { kind: "request"; runId: string; entryId: string }
  | { kind: "random"; runId: string; persona: string }
  | { kind: "skipped"; reason: "not_due" | "busy" | "no_agents" | "budget_spent" | "over_budget" };

/**
 * One scheduling decision for a room, if it is due: serve the oldest open request first,
 * otherwise start the persona whose turn it is (`whoseTurn`) on the room's task and its part in it
 * (or, in a room without a task, a prompt from its template).
 */
export async function scheduleRoom(db: Db, roomId: string): Promise<ScheduleOutcome> {
  const { result } = await writeRoomEvents(db, roomId, async (tx, emit, at): Promise<ScheduleOutcome> => {
    const [room] = await tx.select().from(rooms).where(eq(rooms.id, roomId));
    const settings = parseRoomSettings(room!.settings);
    const dueBefore = new Date(at.getTime() - settings.scheduler_interval_seconds * 1000);
    const claimed = await tx
      .update(rooms)
      .set({ lastScheduledAt: at })
      .where(and(eq(rooms.id, roomId), or(isNull(rooms.lastScheduledAt), lte(rooms.lastScheduledAt, dueBefore))))
      .returning({ id: rooms.id });
    if (claimed.length === 0) return { kind: "skipped", reason: "not_due" };
    // The turn is taken even when the room is busy: pages count down to the next one from here.
    await notifyEphemeral(tx, { type: "scheduler.turn", room_id: roomId, payload: { lastScheduledAt: at.toISOString() } });

    const active = await tx
      .select({ id: runs.id })
      .from(runs)
      .where(and(eq(runs.roomId, roomId), inArray(runs.status, ["queued", "running"])));
    if (active.length >= settings.max_concurrent_runs) return { kind: "skipped", reason: "busy" };
    // A run started now would only be refused when it is claimed.
    if (await spentToday(tx, roomId, settings, { runId: null, agentId: null }, at)) return { kind: "skipped", reason: "budget_spent" };

    const team = await tx.select().from(agents).where(eq(agents.roomId, roomId));
    if (team.length === 0) return { kind: "skipped", reason: "no_agents" };

    const request = await oldestOpenRequest(tx, roomId, at);
    if (request) {
      const served = await serveRequest(tx, emit, { request, team, settings, at });
      if (served) return { kind: "request", runId: served.id, entryId: request.id };
    }

    const agent = await nextInTurn(tx, roomId, room!.template, team);
    // A run its budgets would refuse (it is expected to go past one) is not queued only to fail at its claim, every turn.
    if (await spentToday(tx, roomId, settings, { runId: null, agentId: agent.id }, at, undefined, agent))
      return { kind: "skipped", reason: "over_budget" };
    const prompt = defaultPrompt(room!.template, agent.persona, settings.task);
    const run = await enqueueRun(tx, emit, {
      roomId,
      agentId: agent.id,
      trigger: "scheduler",
      requestedBy: SCHEDULER_ACTOR,
      prompt: `${prompt} Check the shared context and respond to any pending requests or themes.`,
      at,
    });
    return { kind: "random", runId: run.id, persona: agent.persona };
  });
  return result!;
}

/**
 * Whose turn it is, ranked by `whoseTurn` from each agent's last run: every persona takes its
 * turn within one round of the team, and the room's page, ranking the same way from its
 * snapshot and the runs it sees queued, names the same agent.
 */
async function nextInTurn(tx: DbOrTx, roomId: string, templateId: string, team: Agent[]): Promise<Agent> {
  return whoseTurn(team, templateTurnOrder(templateId), await lastRunTimes(tx, roomId))!;
}

/**
 * Queues a run of the persona a request asks for. A request written by a run continues that
 * run's chain — one link deeper, with it as parent and under its correlation id — so asking
 * through the board neither restarts the chain nor escapes its depth limit. A request nobody
 * in the room can answer, whose run is gone, or that would go beyond the limit is cancelled.
 */
async function serveRequest(
  tx: DbOrTx,
  emit: Emit,
  input: { request: BoardEntry; team: Agent[]; settings: RoomSettings; at: Date },
): Promise<Run | null> {
  const { request, team, settings, at } = input;
  const roomId = request.roomId;
  const [parent] = request.runId ? await tx.select().from(runs).where(eq(runs.id, request.runId)) : [];
  const depth = parent ? parent.chainDepth + 1 : 0;
  const target = team.find((agent) => agent.persona === request.targetPersona);
  const answerable = target && (parent || !request.runId) && depth <= settings.max_chain_depth;
  if (!answerable) {
    await setRequestStatus(tx, emit, {
      roomId,
      entryId: request.id,
      status: "cancelled",
      runId: null,
      actor: SCHEDULER_ACTOR,
      correlationId: parent?.correlationId,
    });
    return null;
  }
  const content = request.content as { ask?: string; refNodeIds?: string[] };
  await setRequestStatus(tx, emit, {
    roomId,
    entryId: request.id,
    status: "queued",
    runId: null,
    actor: SCHEDULER_ACTOR,
    correlationId: parent?.correlationId,
  });
  return enqueueRun(tx, emit, {
    roomId,
    agentId: target.id,
    trigger: parent ? "request" : "scheduler",
    requestedBy: parent ? { id: parent.agentId, name: request.agentName } : SCHEDULER_ACTOR,
    prompt: `${request.agentName} asks you: ${content.ask ?? "respond to this request"}`,
    parentRunId: parent?.id ?? null,
    chainDepth: depth,
    correlationId: parent?.correlationId,
    selectedNodeIds: content.refNodeIds ?? [],
    requestEntryId: request.id,
    at,
  });
}

interface SchedulerOptions {
  owner: string;
  tickMs?: number;
  leaseTtlMs?: number;
  onError?: (error: unknown) => void;
}

/**
 * Every tick, the elected instance times out overdue broadcasts, stops brainstorm stages past
 * their time limit, and starts agents in rooms whose scheduler is on and due.
 */
export class Scheduler {
  private timer: NodeJS.Timeout | null = null;
  private ticking = false;

  constructor(
    private readonly database: Database,
    private readonly options: SchedulerOptions,
  ) {}

  start(): void {
    if (this.timer) return;
    this.timer = setInterval(() => void this.tick(), this.options.tickMs ?? 1000);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  /** One pass; returns what was scheduled (empty when another instance holds the lease). */
  async tick(): Promise<ScheduleOutcome[]> {
    if (this.ticking) return [];
    this.ticking = true;
    try {
      const db = this.database.db;
      const leader = await electScheduler(db, this.options.owner, this.options.leaseTtlMs ?? 5000);
      if (!leader) return [];
      // In every room, scheduled or not: a question whose asker is gone ends at its deadline.
      const onError = (error: unknown) => this.options.onError?.(error);
      await sweepOverdueBroadcasts(db, { onError }).catch(onError);
      // What the workflows do on each pass: brainstorm stages past their time limit go on with what they have.
      for (const module of registeredWorkflows()) await module.sweep?.(db).catch(onError);
      const enabled = await db
        .select({ id: rooms.id, settings: rooms.settings })
        .from(rooms)
        .where(sql`(${rooms.settings}->>'scheduler_enabled')::boolean is true`);
      const needViewers = enabled.filter((room) => parseRoomSettings(room.settings).scheduler_needs_viewers);
      const watching = await countPresence(
        this.database,
        needViewers.map((room) => room.id),
      );
      const outcomes: ScheduleOutcome[] = [];
      for (const room of enabled) {
        if (needViewers.includes(room) && !watching.get(room.id)) continue;
        try {
          outcomes.push(await scheduleRoom(db, room.id));
        } catch (error) {
          this.options.onError?.(error);
        }
      }
      return outcomes;
    } catch (error) {
      this.options.onError?.(error);
      return [];
    } finally {
      this.ticking = false;
    }
  }
}
