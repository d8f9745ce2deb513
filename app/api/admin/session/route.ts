// POST /api/admin/session — sign in with the admin token (failures throttled per client address); DELETE — sign out
import { z } from "zod";
import { ADMIN_COOKIE } from "@/lib/auth/admin";
import { endAdminSession, startAdminSession } from "@/lib/auth/admin-sessions";
import { verifyAdminToken } from "@/lib/auth/verify-admin-token";
import { forbidden } from "@/lib/errors";
import { clientAddress } from "@/lib/http/client-address";
import { parseCookies, readJsonBody, respond } from "@/lib/http/request";
import { getRuntime } from "@/lib/runtime";
import { methodsNotAllowed } from "@/lib/http/method-not-allowed";

export const dynamic = "force-dynamic";

const signInSchema = z.strictObject({ token: z.string().min(1, "Enter the admin token").max(512) });

const cookie = (request: Request, value: string, maxAgeSeconds: number) => {
  const secure = new URL(request.url).protocol === "https:" ? "; Secure" : "";
  return `${ADMIN_COOKIE}=${value}; Path=/; HttpOnly; SameSite=Strict; Max-Age=${maxAgeSeconds}${secure}`;
};

/**
 * Failed sign-ins are throttled per client address with every other wrong admin token
 * (`verifyAdminToken`): while an address must wait, every attempt is a 429, a right token's
 * too, so that guessing learns nothing. Only wrong tokens count. Each sign-in is a session of its
 * own (`startAdminSession`): the cookie holds its random id and lasts as long as it does.
 */
export async function POST(request: Request) {
  return respond(async () => {
    const { database } = await getRuntime();
    const { token } = await readJsonBody(request, signInSchema);
    const address = clientAddress(request.headers);
    if (!(await verifyAdminToken(database.db, token, address))) throw forbidden("That admin token is not valid.");
    // Signing in again replaces the browser's session rather than leaving the old one behind.
    const previous = parseCookies(request.headers.get("cookie"))[ADMIN_COOKIE];
    if (previous) await endAdminSession(database.db, previous);
    const session = await startAdminSession(database.db, { clientAddress: address, userAgent: request.headers.get("user-agent") });
    const maxAge = Math.max(1, Math.floor((session.expiresAt.getTime() - Date.now()) / 1000));
    return Response.json(
      { admin: true, expiresAt: session.expiresAt.toISOString() },
      { headers: { "Set-Cookie": cookie(request, session.id, maxAge) } },
    );
  }, request);
}

/** Signs out on the server too: the session's row goes, so a copy of the cookie opens nothing. */
export async function DELETE(request: Request) {
  return respond(async () => {
    const session = parseCookies(request.headers.get("cookie"))[ADMIN_COOKIE];
    if (session) await endAdminSession((await getRuntime()).database.db, session);
    return Response.json({ admin: false }, { headers: { "Set-Cookie": cookie(request, "", 0) } });
  }, request);
}

// Any other method: a 405 in JSON naming these.
export const { GET, PUT, PATCH, OPTIONS } = methodsNotAllowed("POST", "DELETE");
