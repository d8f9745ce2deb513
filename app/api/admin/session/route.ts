// POST /api/admin/session — sign in with the admin token; DELETE — sign out
import { z } from "zod";
import { ADMIN_COOKIE, adminSessionValue, isValidAdminToken } from "@/lib/auth/admin";
import { forbidden } from "@/lib/errors";
import { readJsonBody, respond } from "@/lib/http/request";

export const dynamic = "force-dynamic";

const signInSchema = z.strictObject({ token: z.string().min(1, "Enter the admin token").max(512) });

export async function POST(request: Request) {
  return respond(async () => {
    const { token } = await readJsonBody(request, signInSchema);
    if (!isValidAdminToken(token)) throw forbidden("That admin token is not valid.");
    const secure = new URL(request.url).protocol === "https:" ? "; Secure" : "";
    return Response.json(
      { admin: true },
      {
        headers: {
          "Set-Cookie": `${ADMIN_COOKIE}=${adminSessionValue()}; Path=/; HttpOnly; SameSite=Strict; Max-Age=604800${secure}`,
        },
      },
    );
  });
}

export async function DELETE() {
  return Response.json(
    { admin: false },
    { headers: { "Set-Cookie": `${ADMIN_COOKIE}=; Path=/; HttpOnly; SameSite=Strict; Max-Age=0` } },
  );
}
