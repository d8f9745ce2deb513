// POST /api/admin/session — sign in with the admin token (failures throttled per client address); DELETE — sign out
import { z } from "zod";
import { ADMIN_COOKIE, adminSessionValue } from "@/lib/auth/admin";
import { verifyAdminToken } from "@/lib/auth/verify-admin-token";
import { forbidden } from "@/lib/errors";
import { clientAddress } from "@/lib/http/client-address";
import { readJsonBody, respond } from "@/lib/http/request";
import { getRuntime } from "@/lib/runtime";
import { methodsNotAllowed } from "@/lib/http/method-not-allowed";

export const dynamic = "force-dynamic";

const signInSchema = z.strictObject({ token: z.string().min(1, "Enter the admin token").max(512) });

/**
 * Failed sign-ins are throttled per client address with every other wrong admin token
 * (`verifyAdminToken`): while an address must wait, every attempt is a 429, a right token's
 * too, so that guessing learns nothing. Only wrong tokens count.
 */
export async function POST(request: Request) {
  return respond(async () => {
    const { database } = await getRuntime();
    const { token } = await readJsonBody(request, signInSchema);
    if (!(await verifyAdminToken(database.db, token, clientAddress(request.headers)))) throw forbidden("That admin token is not valid.");
    const secure = new URL(request.url).protocol === "https:" ? "; Secure" : "";
    return Response.json(
      { admin: true },
      {
        headers: {
          "Set-Cookie": `${ADMIN_COOKIE}=${await adminSessionValue(database.db)}; Path=/; HttpOnly; SameSite=Strict; Max-Age=604800${secure}`,
        },
      },
    );
  });
}

export async function DELETE() {
  return Response.json({ admin: false }, { headers: { "Set-Cookie": `${ADMIN_COOKIE}=; Path=/; HttpOnly; SameSite=Strict; Max-Age=0` } });
}

// Any other method: a 405 in JSON naming these.
export const { GET, PUT, PATCH, OPTIONS } = methodsNotAllowed("POST", "DELETE");
