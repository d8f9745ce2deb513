// GET /api/admin/sessions — the admins signed in now (admins); DELETE — end every session, the caller's too
import { ADMIN_COOKIE } from "@/lib/auth/admin";
import { endAllAdminSessions, listAdminSessions } from "@/lib/auth/admin-sessions";
import { adminAccess } from "@/lib/http/room-access";
import { parseCookies, respond } from "@/lib/http/request";
import { methodsNotAllowed } from "@/lib/http/method-not-allowed";

export const dynamic = "force-dynamic";

export async function GET(request: Request) {
  return respond(async () => {
    const runtime = await adminAccess(request);
    const current = parseCookies(request.headers.get("cookie"))[ADMIN_COOKIE];
    return Response.json({ sessions: await listAdminSessions(runtime.database.db, current) });
  }, request);
}

export async function DELETE(request: Request) {
  return respond(async () => {
    const runtime = await adminAccess(request);
    const ended = await endAllAdminSessions(runtime.database.db);
    return Response.json({ ended }, { headers: { "Set-Cookie": `${ADMIN_COOKIE}=; Path=/; HttpOnly; SameSite=Strict; Max-Age=0` } });
  }, request);
}

// Any other method: a 405 in JSON naming these.
export const { POST, PUT, PATCH, OPTIONS } = methodsNotAllowed("GET", "DELETE");
