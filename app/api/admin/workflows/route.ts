// GET /api/admin/workflows?room=&cursor=&before=&limit= — a room's workflows, newest first (admins)
import { z } from "zod";
import { notFound } from "@/lib/errors";
import { adminAccess } from "@/lib/http/room-access";
import { respond } from "@/lib/http/request";
import { findRoom } from "@/lib/rooms/list-rooms";
import { listWorkflows, parseQuery, workflowListQuerySchema } from "@/lib/workflows/read-workflow";
import { methodsNotAllowed } from "@/lib/http/method-not-allowed";

export const dynamic = "force-dynamic";

const querySchema = workflowListQuerySchema.extend({ room: z.string().min(1, "room is required").max(64) });

export async function GET(request: Request) {
  return respond(async () => {
    const runtime = await adminAccess(request);
    const { room, ...query } = parseQuery(querySchema, new URL(request.url).searchParams);
    if (!(await findRoom(runtime.database.db, room))) throw notFound("Room");
    return Response.json(await listWorkflows(runtime.database.db, room, query));
  }, request);
}

// Any other method: a 405 in JSON naming these.
export const { POST, PUT, PATCH, DELETE, OPTIONS } = methodsNotAllowed("GET");
