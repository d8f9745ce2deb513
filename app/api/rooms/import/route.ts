// POST /api/rooms/import — create a room from a multi-agent configuration file (YAML)
import { readJsonBody, respond } from "@/lib/http/request";
import { importRoom, importRoomInputSchema } from "@/lib/rooms/import-room";
import { getRuntime } from "@/lib/runtime";

export const dynamic = "force-dynamic";

export async function POST(request: Request) {
  return respond(async () => {
    const input = await readJsonBody(request, importRoomInputSchema, 300 * 1024);
    const { database } = await getRuntime();
    const { room, agents, ignored, notes, settings } = await importRoom(database.db, input);
    return Response.json(
      {
        room: { id: room.id, title: room.title, template: room.template },
        agents,
        settings,
        ignored,
        notes,
      },
      { status: 201 },
    );
  });
}
