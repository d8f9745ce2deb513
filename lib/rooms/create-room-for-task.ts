import { eq } from "drizzle-orm";
import { z } from "zod";
import type { Db } from "@/db";
import { rooms } from "@/db/schema";
import { seatActor, takeSeat, takeSeatInputSchema } from "@/lib/auth/seats";
import { LIMITS } from "@/lib/protocol";
import { createRoom } from "./create-room";
import { type TeamStart, startTeam } from "./start-team";

/** The longest task a room is created with (a build review's task is held to the same). */
const ROOM_TASK_MAX = 1000;

/**
 * What a person gives to create a room: what its team should work on (`task`), and optionally a
 * title (else one is made from the task), a name to take a seat under at once, and whether to
 * start the team straight away. A request naming only a title works on the title.
 */
export const newRoomInputSchema = z
  .strictObject({
    task: z
      .string()
      .trim()
      .min(3, "Say in a few words what the team should work on")
      .max(ROOM_TASK_MAX, `A task is limited to ${ROOM_TASK_MAX} characters`)
      .optional(),
    title: z.string().trim().min(1, "Give the room a title").max(LIMITS.roomTitle).optional(),
    template: z.string().min(1).max(64),
    displayName: takeSeatInputSchema.shape.displayName.optional(),
    start: z.boolean().optional(),
  })
  .refine((input) => input.task !== undefined || input.title !== undefined, {
    message: "Say what the team should work on",
    path: ["task"],
  })
  .refine((input) => !input.start || input.displayName !== undefined, {
    message: "Take a seat (a display name) to start the team at once",
    path: ["start"],
  });
export type NewRoomInput = z.infer<typeof newRoomInputSchema>;

/**
 * A title made from a task: its first sentence, without a closing full stop, capitalised and
 * cut between words to fit ("write a lullaby for a lighthouse keeper. Keep it short" →
 * "Write a lullaby for a lighthouse keeper").
 */
export function titleFromTask(task: string): string {
  const firstSentence = task
    .trim()
    .split(/(?<=[.!?])\s+|\n/)[0]!
    .replace(/[.\s]+$/, "");
  const capitalised = firstSentence.charAt(0).toUpperCase() + firstSentence.slice(1);
  if (capitalised.length <= LIMITS.roomTitle) return capitalised;
  const cut = capitalised.slice(0, LIMITS.roomTitle - 1);
  return `${cut.slice(0, Math.max(cut.lastIndexOf(" "), LIMITS.roomTitle / 2)).replace(/[\s,;:-]+$/, "")}…`;
}

/**
 * Creates a room on a task: the room's agents work on it and nothing else. Given a display name,
 * its creator takes the room's first seat and owns the room (may start its team and choose who
 * answers its agents' questions); with `start`, the team starts at once.
 */
export async function createRoomForTask(db: Db, input: NewRoomInput) {
  const task = input.task ?? input.title!;
  const title = input.title ?? titleFromTask(task);
  const created = await createRoom(db, { title, template: input.template }, { settings: { task } });
  const roomId = created.room.id;
  if (input.displayName === undefined) return { ...created, seat: null, token: null, started: null };
  const { seat, token } = await takeSeat(db, roomId, { displayName: input.displayName });
  await db.update(rooms).set({ ownerSeatId: seat.id }).where(eq(rooms.id, roomId));
  const started: TeamStart | null = input.start ? await startTeam(db, roomId, seatActor(seat)) : null;
  return { ...created, seat, token, started };
}
