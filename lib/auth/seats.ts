import { randomUUID } from "node:crypto";
import { and, eq } from "drizzle-orm";
import { z } from "zod";
import type { Db, DbOrTx } from "@/db";
import { type Seat, seats } from "@/db/schema";
import { writeRoomEvents } from "@/lib/events/write-room-events";
import { LIMITS } from "@/lib/protocol";
import { hashToken, randomToken } from "./tokens";

export const takeSeatInputSchema = z.strictObject({
  displayName: z
    .string()
    .trim()
    .min(1, "Choose a display name")
    .max(LIMITS.displayName, `Display names are limited to ${LIMITS.displayName} characters`),
});
export type TakeSeatInput = z.infer<typeof takeSeatInputSchema>;

/** The cookie that holds a person's seat token for one room. */
export function seatCookieName(roomId: string): string {
  return `parley_seat_${roomId.replace(/[^A-Za-z0-9-]/g, "")}`;
}

export function seatActor(seat: Pick<Seat, "id" | "displayName">) {
  return { kind: "human" as const, id: `human:${seat.id}`, name: seat.displayName };
}

/** Seats a person in a room; the returned token goes into their cookie and is stored only hashed. */
export async function takeSeat(db: Db, roomId: string, input: TakeSeatInput) {
  const token = randomToken();
  const seatId = randomUUID();
  await writeRoomEvents(db, roomId, async (tx, emit) => {
    await tx.insert(seats).values({ id: seatId, roomId, displayName: input.displayName, tokenHash: hashToken(token) });
    emit({
      type: "seat.taken",
      actor: { id: `human:${seatId}`, name: input.displayName },
      payload: { seatId, displayName: input.displayName },
    });
  });
  return { seat: { id: seatId, displayName: input.displayName }, token };
}

export async function findSeatByToken(db: DbOrTx, roomId: string, token: string | undefined): Promise<Seat | null> {
  if (!token) return null;
  const [seat] = await db
    .select()
    .from(seats)
    .where(and(eq(seats.roomId, roomId), eq(seats.tokenHash, hashToken(token))));
  return seat ?? null;
}
