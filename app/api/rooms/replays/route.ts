// POST /api/rooms/replays — make a read-only replay room from a room log file (the body, as exported by any Parley's
// GET /api/rooms/[roomId]/export); a malformed or tampered file is a 400 naming its line, and nothing is written
// (anyone, or admins only, as creating rooms is; rate-limited per client address as imports are)
import { limitPerAddress } from "@/lib/http/rate-limited";
import { isAdminRequest } from "@/lib/http/room-access";
import { readText, respond } from "@/lib/http/request";
import { methodsNotAllowed } from "@/lib/http/method-not-allowed";
import { assertMayCreateRooms } from "@/lib/limits/room-creation";
import { importReplay, replayLimits } from "@/lib/rooms/import-replay";
import { getRuntime } from "@/lib/runtime";

export const dynamic = "force-dynamic";

export async function POST(request: Request) {
  return respond(async () => {
    const { database } = await getRuntime();
    assertMayCreateRooms(await isAdminRequest(request), "create rooms");
    await limitPerAddress(database.db, request, "imports");
    const text = await readText(request, replayLimits().maxBytes);
    return Response.json(await importReplay(database.db, text), { status: 201 });
  }, request);
}

// Any other method: a 405 in JSON naming these.
export const { GET, PUT, PATCH, DELETE, OPTIONS } = methodsNotAllowed("POST");
