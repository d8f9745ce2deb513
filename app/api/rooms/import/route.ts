// POST /api/rooms/import — create a room from a multi-agent configuration file (YAML)
// (anyone, or admins only: see docs/behaviour/limits.md; rate-limited per client address). Only an
// admin's import may name endpoints the server does not list (docs/behaviour/importing-teams.md).
import { limitPerAddress } from "@/lib/http/rate-limited";
import { readJsonBody, respond } from "@/lib/http/request";
import { isAdminRequest } from "@/lib/http/room-access";
import { assertMayCreateRooms } from "@/lib/limits/room-creation";
import { importRoom, importRoomInputSchema } from "@/lib/rooms/import-room";
import { getRuntime } from "@/lib/runtime";
import { methodsNotAllowed } from "@/lib/http/method-not-allowed";

export const dynamic = "force-dynamic";

export async function POST(request: Request) {
  return respond(async () => {
    const { database } = await getRuntime();
    const admin = await isAdminRequest(request);
    assertMayCreateRooms(admin, "import teams");
    await limitPerAddress(database.db, request, "imports");
    const input = await readJsonBody(request, importRoomInputSchema, 300 * 1024);
    const { room, agents, team, ignored, notes, settings } = await importRoom(database.db, input, { admin });
    return Response.json(
      {
        room: { id: room.id, title: room.title, template: room.template },
        agents,
        team,
        settings,
        ignored,
        notes,
      },
      { status: 201 },
    );
  }, request);
}

// Any other method: a 405 in JSON naming these.
export const { GET, PUT, PATCH, DELETE, OPTIONS } = methodsNotAllowed("POST");
