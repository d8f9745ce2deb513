import { and, asc, eq } from "drizzle-orm";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { GET as audit } from "@/app/api/admin/audit/route";
import { POST as decideRoute } from "@/app/api/rooms/[roomId]/brainstorms/[brainstormId]/gate/route";
import { GET as latestRoute } from "@/app/api/rooms/[roomId]/brainstorms/route";
import { POST as takeSeat } from "@/app/api/rooms/[roomId]/seat/route";
import { adminActions, brainstorms, events, runs } from "@/db/schema";
import { startBrainstorm } from "@/lib/brainstorm/start-brainstorm";
import type { BrainstormDto } from "@/lib/protocol/brainstorm";
import { createRoom } from "@/lib/rooms/create-room";
import { startTestWorker } from "@/test/agents";
import { eventually } from "@/test/fixtures";
import { call, cookieFrom } from "@/test/http";
import { useTestRuntime } from "@/test/test-runtime";

const TOKEN = "admin-token-for-gate-audit-tests";
const admin = { authorization: `Bearer ${TOKEN}` };
const context = useTestRuntime();

beforeEach(() => {
  vi.stubEnv("ADMIN_TOKEN", TOKEN);
});
afterEach(() => {
  vi.unstubAllEnvs();
});

/** A brainstorm room with Ada seated and its brainstorm waiting at the gate, its runs all finished. */
async function brainstormAtTheGate() {
  const { room } = await createRoom(context.database.db, { title: "Onboarding", template: "brainstorm" });
  const seat = await call(takeSeat, { url: "/x", method: "POST", params: { roomId: room.id }, body: { displayName: "Ada" } });
  const ada = cookieFrom(seat.headers.get("set-cookie"));
  const worker = await startTestWorker(context.database);
  try {
    await startBrainstorm(context.database.db, room.id, "How might we cut onboarding time for new engineers?", {
      id: "human:ada",
      name: "Ada",
    });
    await eventually(async () => {
      const [row] = await context.database.db.select().from(brainstorms).where(eq(brainstorms.roomId, room.id));
      expect(row?.status).toBe("awaiting_gate");
      const busy = await context.database.db.select({ status: runs.status }).from(runs).where(eq(runs.roomId, room.id));
      expect(busy.filter((run) => run.status === "queued" || run.status === "running")).toEqual([]);
    }, 30_000);
  } finally {
    await worker.stop();
  }
  const brainstorm = (await call(latestRoute, { url: "/x", method: "GET", params: { roomId: room.id } })).body.brainstorm as BrainstormDto;
  return { roomId: room.id, title: room.title, ada, brainstorm };
}

const recorded = (roomId: string) => context.database.db.select().from(adminActions).where(eq(adminActions.roomId, roomId));

describe("an admin's decision at a brainstorm's gate", () => {
  it("is recorded in the audit trail with the decision, once however often it is retried; refused decisions and a seat's are not", async () => {
    const { roomId, title, ada, brainstorm } = await brainstormAtTheGate();
    const [top] = brainstorm.ranking;
    const decide = (body: unknown, options: { cookie?: string; headers?: Record<string, string> }) =>
      call(decideRoute, { url: "/x", method: "POST", params: { roomId, brainstormId: brainstorm.id }, body, ...options });

    // A decision the gate refuses leaves no record.
    const refused = await decide({ action: "drop", round: 1, candidateId: "C99" }, { headers: admin });
    expect(refused.status).toBe(400);
    expect(await recorded(roomId)).toEqual([]);

    const keyed = { headers: { ...admin, "idempotency-key": "drop-the-top" } };
    const dropped = await decide({ action: "drop", round: 1, candidateId: top!.id }, keyed);
    expect(dropped.status).toBe(200);
    expect(dropped.body.decision).toMatchObject({ action: "drop", candidateId: top!.id, byId: "admin" });
    const retried = await decide({ action: "drop", round: 1, candidateId: top!.id }, keyed);
    expect(retried.status).toBe(200);
    expect(retried.body.decision).toEqual(dropped.body.decision);

    const rows = await recorded(roomId);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({
      actor: "admin",
      action: "brainstorm.gate_decided",
      roomId,
      roomTitle: title,
      summary: `Dropped ${top!.id} at the brainstorm's gate (round 1)`,
      details: { brainstormId: brainstorm.id, action: "drop", round: 1, candidateId: top!.id },
    });
    // The room's own log has the decision once, by the admin.
    const logged = await context.database.db
      .select({ agent: events.agent })
      .from(events)
      .where(and(eq(events.roomId, roomId), eq(events.type, "brainstorm.gate_decided")))
      .orderBy(asc(events.seq));
    expect(logged).toEqual([{ agent: "admin" }]);

    // A participant's decision is theirs, not an admin's: no record.
    expect((await decide({ action: "drop", round: 2, candidateId: dropped.body.brainstorm.ranking[0].id }, { cookie: ada })).status).toBe(
      200,
    );
    expect(await recorded(roomId)).toHaveLength(1);

    const trail = await call(audit, { url: `/api/admin/audit?room=${roomId}`, method: "GET", params: {}, headers: admin });
    expect(trail.body.actions).toEqual([
      expect.objectContaining({ action: "brainstorm.gate_decided", roomTitle: title, roomExists: true }),
    ]);
  });
});
