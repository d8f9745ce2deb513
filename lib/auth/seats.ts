import { randomUUID } from "node:crypto";
import { and, eq } from "drizzle-orm";
import { z } from "zod";
import type { Db, DbOrTx } from "@/db";
import { type Seat, seats } from "@/db/schema";
import { firstEvent, writeRoomEventsInTransaction } from "@/lib/events/write-room-events";
import { conflict } from "@/lib/errors";
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

/** The `Set-Cookie` value that hands a browser its seat token for one room (a year; `Secure` over HTTPS). */
export function seatCookie(roomId: string, token: string, requestUrl: string): string {
  const secure = new URL(requestUrl).protocol === "https:" ? "; Secure" : "";
  return `${seatCookieName(roomId)}=${token}; Path=/; HttpOnly; SameSite=Lax; Max-Age=31536000${secure}`;
}

export function seatActor(seat: Pick<Seat, "id" | "displayName">) {
  return { kind: "human" as const, id: `human:${seat.id}`, name: seat.displayName };
}

/** How long after taking a seat a retry without its cookie may still be answered with it. */
const SEAT_RETRY_WINDOW_MS = 60_000;

export interface TakeSeatOptions {
  /** The browser's key for this request: a retry with the same key seats nobody new. */
  idempotencyKey?: string;
  /** The caller's seat cookie, if any: a retry from a browser that got the original cookie keeps it. */
  heldToken?: string;
}

/**
 * Seats a person in a room; the returned token goes into their cookie and is stored only hashed.
 *
 * A retry under the same key answers for the seat the original took. Its token cannot be
 * read back, so unless the caller already holds it, the seat gets a new one and the
 * original's (which never reached the browser, or it would have sent it) stops working.
 * That holds for `SEAT_RETRY_WINDOW_MS`; a later replay of the key without the cookie is a 409.
 */
export async function takeSeat(db: Db, roomId: string, input: TakeSeatInput, options: TakeSeatOptions = {}) {
  const token = randomToken();
  const seatId = randomUUID();
  return db.transaction(async (tx) => {
    const write = await writeRoomEventsInTransaction(
      tx,
      roomId,
      async (inner, emit) => {
        await inner.insert(seats).values({ id: seatId, roomId, displayName: input.displayName, tokenHash: hashToken(token) });
        emit({
          type: "seat.taken",
          actor: { id: `human:${seatId}`, name: input.displayName },
          payload: { seatId, displayName: input.displayName },
        });
      },
      { idempotencyKey: options.idempotencyKey, change: { type: "seat.taken", request: { displayName: input.displayName } } },
    );
    if (!write.duplicate) return { seat: { id: seatId, displayName: input.displayName }, token };

    const original = firstEvent(write.events, "seat.taken");
    const { payload } = original;
    const seat = { id: payload.seatId, displayName: payload.displayName };
    const held = await findSeatByToken(tx, roomId, options.heldToken);
    if (held?.id === seat.id) return { seat, token: options.heldToken! };
    // Handing out a new token locks the seat's holder out, so only a browser's own retry of
    // a request just sent may do it, not anyone who comes across the key later.
    if (Date.now() - Date.parse(original.timestamp) > SEAT_RETRY_WINDOW_MS) {
      throw conflict(`Idempotency-Key "${options.idempotencyKey}" already took a seat in this room; send a new key to take another.`);
    }
    await tx
      .update(seats)
      .set({ tokenHash: hashToken(token) })
      .where(and(eq(seats.roomId, roomId), eq(seats.id, seat.id)));
    return { seat, token };
  });
}

export async function findSeatByToken(db: DbOrTx, roomId: string, token: string | undefined): Promise<Seat | null> {
  if (!token) return null;
  const [seat] = await db
    .select()
    .from(seats)
    .where(and(eq(seats.roomId, roomId), eq(seats.tokenHash, hashToken(token))));
  return seat ?? null;
}
