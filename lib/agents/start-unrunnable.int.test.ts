import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { agents, runs } from "@/db/schema";
import { readEventsAfter } from "@/lib/events/read-events";
import { agentByPersona } from "@/test/agents";
import { createTestRoom } from "@/test/fixtures";
import { call, cookieFrom } from "@/test/http";
import { useOfflineServer } from "@/test/offline-server";
import { useTestRuntime } from "@/test/test-runtime";
import { POST as startRun } from "@/app/api/rooms/[roomId]/runs/route";
import { POST as takeSeat } from "@/app/api/rooms/[roomId]/seat/route";

const context = useTestRuntime();
// No provider is configured here, whatever the shell has set.
useOfflineServer();

describe("starting an agent whose model cannot run here", () => {
  it("is refused with a 409 saying why, queuing nothing, while a runnable agent starts", async () => {
    const { roomId } = await createTestRoom(context.database.db);
    const seat = await call(takeSeat, { url: "/x", method: "POST", params: { roomId }, body: { displayName: "Ann" } });
    const cookie = cookieFrom(seat.headers.get("set-cookie"));
    const painter = await agentByPersona(context.database, roomId, "scene-painter");
    await context.database.db.update(agents).set({ model: "openai:gpt-4o" }).where(eq(agents.id, painter.id));
    const before = (await readEventsAfter(context.database.db, roomId, 0)).length;
    const start = (agentId: string) =>
      call(startRun, { url: "/x", method: "POST", params: { roomId }, body: { agentId, prompt: "Paint the storm" }, cookie });

    const refused = await start(painter.id);
    expect(refused.status).toBe(409);
    expect(refused.body.error.code).toBe("model_unavailable");
    expect(refused.body.error.message).toMatch(/^Scene Painter cannot run on this server: .*OPENAI_API_KEY/);
    expect(await context.database.db.select().from(runs).where(eq(runs.roomId, roomId))).toEqual([]);
    expect((await readEventsAfter(context.database.db, roomId, 0)).length).toBe(before);

    const songwriter = await agentByPersona(context.database, roomId, "songwriter");
    expect((await start(songwriter.id)).status).toBe(201);
  });
});
