// GET /demo — send a new user straight into a working room
import { ensureDemoRoom } from "@/lib/rooms/ensure-demo-room";
import { getRuntime } from "@/lib/runtime";

export const dynamic = "force-dynamic";

export async function GET(request: Request) {
  const { database } = await getRuntime();
  const { id } = await ensureDemoRoom(database.db);
  return Response.redirect(new URL(`/rooms/${id}`, request.url), 303);
}
