import type { Seat } from "@/db/schema";
import { ADMIN_COOKIE, adminStatus, assertAdmin } from "@/lib/auth/admin";
import { findSeatByToken, seatCookieName } from "@/lib/auth/seats";
import { forbidden, notFound } from "@/lib/errors";
import { findRoom } from "@/lib/rooms/list-rooms";
import { type Runtime, getRuntime } from "@/lib/runtime";
import { bearerToken, parseCookies } from "./request";

export interface RoomAccess {
  runtime: Runtime;
  roomId: string;
  seat: Seat | null;
}

/**
 * Resolves the caller's seat in the room, if any, and refuses unknown rooms (404). A seat
 * implies its room exists, so a participant's request costs one query.
 */
export async function roomAccess(request: Request, roomId: string): Promise<RoomAccess> {
  return roomAccessByCookie(request.headers.get("cookie"), roomId);
}

/** `roomAccess` for handlers that see the raw `Cookie` header rather than a `Request`. */
export async function roomAccessByCookie(cookieHeader: string | null | undefined, roomId: string): Promise<RoomAccess> {
  const runtime = await getRuntime();
  const cookies = parseCookies(cookieHeader ?? null);
  const seat = await findSeatByToken(runtime.database.db, roomId, cookies[seatCookieName(roomId)]);
  if (!seat && !(await findRoom(runtime.database.db, roomId))) throw notFound("Room");
  return { runtime, roomId, seat };
}

/**
 * Like `roomAccessByCookie`, but refuses spectators: only people with a seat may change the
 * room. Takes the raw `Cookie` header, so that both App Router and Pages API handlers can use it.
 */
export async function participantAccessByCookie(
  cookieHeader: string | null | undefined,
  roomId: string,
): Promise<RoomAccess & { seat: Seat }> {
  const runtime = await getRuntime();
  const token = parseCookies(cookieHeader ?? null)[seatCookieName(roomId)];
  const cached = token ? runtime.seats.get(roomId, token) : null;
  if (cached) return { runtime, roomId, seat: cached };
  const access = await roomAccessByCookie(cookieHeader, roomId);
  if (!access.seat) throw forbidden("Spectators can watch but not change the room. Take a seat to participate.");
  runtime.seats.remember(roomId, token!, access.seat);
  return { ...access, seat: access.seat };
}

/** Whether a request carries valid admin credentials (a session cookie or a bearer token). */
export function isAdminRequest(request: Request): boolean {
  const cookies = parseCookies(request.headers.get("cookie"));
  return adminStatus({ cookie: cookies[ADMIN_COOKIE], bearer: bearerToken(request) }) === "admin";
}

/** Refuses anyone who is not an admin: 401 without credentials, 403 with wrong ones. */
export async function adminAccess(request: Request): Promise<Runtime> {
  const cookies = parseCookies(request.headers.get("cookie"));
  assertAdmin(adminStatus({ cookie: cookies[ADMIN_COOKIE], bearer: bearerToken(request) }));
  return getRuntime();
}
