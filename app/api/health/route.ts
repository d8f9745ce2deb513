// GET /api/health — liveness and which database this instance uses
import { sql } from "drizzle-orm";
import { respond } from "@/lib/http/request";
import { getRuntime } from "@/lib/runtime";
import { methodsNotAllowed } from "@/lib/http/method-not-allowed";

export const dynamic = "force-dynamic";

export async function GET(request: Request) {
  return respond(async () => {
    const runtime = await getRuntime();
    await runtime.database.db.execute(sql`select 1`);
    return Response.json({ ok: true, driver: runtime.database.driver, instance: runtime.instanceId });
  }, request);
}

// Any other method: a 405 in JSON naming these.
export const { POST, PUT, PATCH, DELETE, OPTIONS } = methodsNotAllowed("GET");
