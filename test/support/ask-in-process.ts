// Asks a human-mode question from a separate process, as a second app instance would.
// Env: DATABASE_URL, ROOM_ID, PERSONA, QUESTION. Prints the result as one JSON line.
import { and, eq } from "drizzle-orm";
import { openPostgres } from "@/db/client";
import { agents } from "@/db/schema";
import { askOthers } from "@/lib/broadcast/ask-others";
import { resolveModel } from "@/lib/models/registry";
import { RoomBus } from "@/lib/realtime/bus";

const database = await openPostgres({ url: process.env.DATABASE_URL!, max: 3 });
const bus = new RoomBus(database);
await bus.start();
const roomId = process.env.ROOM_ID!;
const [asker] = await database.db
  .select()
  .from(agents)
  .where(and(eq(agents.roomId, roomId), eq(agents.persona, process.env.PERSONA!)));
const result = await askOthers(
  { database, bus, resolveModel: (spec) => resolveModel(spec, { scriptPaceMs: 0 }), pollMs: 200 },
  { roomId, asker: asker!, runId: null, correlationId: `process-${process.pid}`, question: process.env.QUESTION! },
);
console.log(JSON.stringify({ pid: process.pid, persona: process.env.PERSONA, result }));
await bus.stop();
await database.close();
process.exit(0);
