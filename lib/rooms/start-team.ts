import { eq } from "drizzle-orm";
import type { Db } from "@/db";
import { agents, buildReviews, rooms } from "@/db/schema";
import { scheduleRoom } from "@/lib/agents/scheduler";
import { refuseUnrunnableTeam } from "@/lib/agents/start-agent-run";
import { startBrainstorm } from "@/lib/brainstorm/start-brainstorm";
import { startBuildReview } from "@/lib/build-review/start-build-review";
import { badRequest, conflict, notFound } from "@/lib/errors";
import { type Actor, writeRoomEvents } from "@/lib/events/write-room-events";
import { parseRoomSettings } from "./room-settings";

/** What starting the team began: a canvas room's first turn, a build review or a brainstorm. */
export type TeamStart =
  | { kind: "canvas"; runId: string | null }
  | { kind: "build-review"; reviewId: string }
  | { kind: "brainstorm"; brainstormId: string };

/**
 * Sets a room's team to work on the room's task: a Creative canvas room turns its turns on and
 * starts the first persona at once; a Build review starts a review of the task, a Brainstorm a
 * brainstorm of it. A room starts once (409 after), and only on a task (400 without one); with
 * `refuseUnrunnable`, not while the model of an agent it would set to work cannot run here (409).
 */
export async function startTeam(db: Db, roomId: string, actor: Actor, options: { refuseUnrunnable?: boolean } = {}): Promise<TeamStart> {
  const [room] = await db.select().from(rooms).where(eq(rooms.id, roomId));
  if (!room) throw notFound("Room");
  const settings = parseRoomSettings(room.settings);
  const task = settings.task.trim();
  if (!task) throw badRequest("This room has no task to start on: give it one (an admin sets its task in the room's settings).");
  if (room.template === "build-review") {
    const [earlier] = await db.select({ id: buildReviews.id }).from(buildReviews).where(eq(buildReviews.roomId, roomId)).limit(1);
    if (earlier) throw conflict("The team is already at work in this room.");
    const started = await startBuildReview(db, roomId, task, actor, options);
    return { kind: "build-review", reviewId: started.payload.review.id };
  }
  if (room.template === "brainstorm") {
    const brainstorm = await startBrainstorm(db, roomId, task, actor, options);
    return { kind: "brainstorm", brainstormId: brainstorm.id };
  }
  // Every member takes its turns: one that cannot run would fail each of them.
  if (options.refuseUnrunnable) refuseUnrunnableTeam(await db.select().from(agents).where(eq(agents.roomId, roomId)));
  await writeRoomEvents(db, roomId, async (tx, emit) => {
    // Read again under the room's lock: two people pressing Start at once start it once.
    const [current] = await tx.select({ settings: rooms.settings }).from(rooms).where(eq(rooms.id, roomId));
    const now = parseRoomSettings(current!.settings);
    if (now.scheduler_enabled) throw conflict("The team is already at work in this room.");
    const next = { ...now, scheduler_enabled: true };
    await tx.update(rooms).set({ settings: next }).where(eq(rooms.id, roomId));
    emit({ type: "room.updated", actor, payload: { settings: next } });
  });
  const first = await scheduleRoom(db, roomId);
  return { kind: "canvas", runId: first.kind === "skipped" ? null : first.runId };
}
