import { and, eq, inArray, sql } from "drizzle-orm";
import type { Db } from "@/db";
import { agents, brainstorms, rooms, runs } from "@/db/schema";
import { cancelRun } from "@/lib/agents/cancel-run";
import { writeRoomEvents } from "@/lib/events/write-room-events";
import type { StageKey } from "@/lib/protocol/brainstorm";
import { DEFAULT_STAGE_MINUTES, parseRoomSettings } from "@/lib/rooms/room-settings";
import { type BrainstormStep, endStage, lockBrainstorm, saveBrainstorm } from "./advance-brainstorm";
import { BRAINSTORM_AUTHOR } from "./lanes";

/**
 * Stops the brainstorm stages that have run past their room's time limit: the stage is marked
 * timed out (so it is not run again for a shortfall) and its runs are cancelled; as the last of
 * them ends, the stage ends with what it has. The gate never times out. Returns how many
 * stages were stopped. Run on the scheduler's tick.
 */
export async function sweepStageLimits(db: Db, now: Date = new Date()): Promise<number> {
  const running = await db
    .select({ id: brainstorms.id, roomId: brainstorms.roomId, stages: brainstorms.stages, settings: rooms.settings })
    .from(brainstorms)
    .innerJoin(rooms, eq(rooms.id, brainstorms.roomId))
    .where(eq(brainstorms.status, "running"));
  let stopped = 0;
  for (const brainstorm of running) {
    const limits = parseRoomSettings(brainstorm.settings).brainstorm_stage_minutes;
    for (const [key, state] of Object.entries(brainstorm.stages) as [StageKey, (typeof brainstorm.stages)[StageKey]][]) {
      if (key === "gate" || state.status !== "running" || state.timedOut || !state.startedAt) continue;
      const minutes = limits[key] ?? DEFAULT_STAGE_MINUTES;
      if (Date.parse(state.startedAt) + minutes * 60_000 > now.getTime()) continue;
      if (await stopStage(db, brainstorm.roomId, brainstorm.id, key)) stopped += 1;
    }
  }
  return stopped;
}

async function stopStage(db: Db, roomId: string, brainstormId: string, stage: StageKey): Promise<boolean> {
  const { result: active } = await writeRoomEvents(db, roomId, async (tx, emit, at) => {
    const brainstorm = await lockBrainstorm(tx, brainstormId);
    const state = brainstorm?.stages[stage];
    if (!brainstorm || brainstorm.status !== "running" || state?.status !== "running" || state.timedOut) return null;
    const marked = await saveBrainstorm({ tx, emit, at, team: [] }, brainstorm, {
      stages: { ...brainstorm.stages, [stage]: { ...state, timedOut: true } },
    });
    const working = await tx
      .select({ id: runs.id })
      .from(runs)
      .where(
        and(
          eq(runs.roomId, roomId),
          inArray(runs.status, ["queued", "running"]),
          sql`${runs.purpose}->>'brainstormId' = ${brainstormId}`,
          sql`${runs.purpose}->>'stage' = ${stage}`,
        ),
      );
    if (working.length === 0) {
      // Nothing left to end it: it ends here, with what it has.
      const team = await tx.select().from(agents).where(eq(agents.roomId, roomId));
      const step: BrainstormStep = { tx, emit, at, team };
      await endStage(step, marked, stage, null);
    }
    return working.map((run) => run.id);
  });
  if (active === null) return false;
  for (const runId of active ?? []) {
    await cancelRun(db, roomId, runId, BRAINSTORM_AUTHOR).catch(() => {
      // It ended on its own meanwhile: its end moved the stage on.
    });
  }
  return true;
}
