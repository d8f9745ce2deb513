import type { Seat } from "@/db/schema";
import { ADMIN_COOKIE, type AdminStatus, adminStatus, assertAdmin } from "@/lib/auth/admin";
import { findSeatByToken, seatCookieName } from "@/lib/auth/seats";
import { verifyAdminToken } from "@/lib/auth/verify-admin-token";
import { forbidden, notFound } from "@/lib/errors";
import { findRoom } from "@/lib/rooms/list-rooms";
import { type Runtime, getRuntime } from "@/lib/runtime";
import { clientAddress } from "./client-address";
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

const adminStatusOf = new WeakMap<Request, Promise<AdminStatus>>();

/**
 * Whether a request comes from an admin: a session cookie or `Authorization: Bearer <token>`.
 * A bearer token is a guess at the admin token and is throttled as sign-ins are
 * (`verifyAdminToken`): a wrong one counts against the client address's allowance, and once it
 * is spent any bearer token is refused with a 429. A wrong cookie is not counted: a cookie holds a
 * random session id that only signing in hands out (`adminStatus`), so it cannot be made from a
 * guessed token. Decided once per request, so a request that asks twice (who may create rooms, then
 * whether its address is limited) counts once.
 */
function requestAdminStatus(request: Request): Promise<AdminStatus> {
  let status = adminStatusOf.get(request);
  if (!status) {
    status = resolveAdminStatus(request);
    adminStatusOf.set(request, status);
  }
  return status;
}

async function resolveAdminStatus(request: Request): Promise<AdminStatus> {
  const bearer = bearerToken(request);
  const cookie = parseCookies(request.headers.get("cookie"))[ADMIN_COOKIE];
  if (bearer === undefined && cookie === undefined) return "anonymous";
  const { database } = await getRuntime();
  if (bearer === undefined) return adminStatus(database.db, { cookie });
  return (await verifyAdminToken(database.db, bearer, clientAddress(request.headers))) ? "admin" : "invalid";
}

/** Whether a request carries valid admin credentials (see `requestAdminStatus`, whose 429 it passes on). */
export async function isAdminRequest(request: Request): Promise<boolean> {
  return (await requestAdminStatus(request)) === "admin";
}

/** Refuses anyone who is not an admin: 401 without credentials, 403 with wrong ones, 429 while guesses are throttled. */
export async function adminAccess(request: Request): Promise<Runtime> {
  assertAdmin(await requestAdminStatus(request));
  return getRuntime();
}
