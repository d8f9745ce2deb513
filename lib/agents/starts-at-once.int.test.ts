import { eq, sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runs } from "@/db/schema";
import type { RoomSettingsPatch } from "@/lib/rooms/room-settings";
import { alice, createTestRoom } from "@/test/fixtures";
import { type TestDatabase, createTestDatabase } from "@/test/test-database";
import { startAgentRun } from "./start-agent-run";
import { type QueuedRunRef, startsAtOnce } from "./starts-at-once";

let database: TestDatabase;

beforeAll(async () => {
  database = await createTestDatabase();
});
afterAll(async () => {
  await database.destroy();
});

/** A room and a way to give its agents runs: queued, or running under a live or a lapsed lease, as a worker leaves them. */
async function room(settings: RoomSettingsPatch) {
  const { roomId, agents } = await createTestRoom(database.db, settings);
  const agentId = (persona: string) => agents.find((agent) => agent.persona === persona)!.id;
  const queue = async (persona: string) => {
    // Each run queued a moment after the last, so the queue's order is theirs.
    await new Promise((resolve) => setTimeout(resolve, 2));
    const queued = await startAgentRun(database.db, roomId, { agentId: agentId(persona), prompt: "Work" }, alice);
    const [row] = await database.db.select().from(runs).where(eq(runs.id, queued.id));
    return row!;
  };
  const run = async (persona: string, lease: "live" | "lapsed" = "live") => {
    const queued = await queue(persona);
    const leaseExpiresAt = lease === "live" ? sql`now() + interval '1 minute'` : sql`now() - interval '1 minute'`;
    await database.db.update(runs).set({ status: "running", leaseOwner: "a worker", leaseExpiresAt }).where(eq(runs.id, queued.id));
  };
  const atOnce = (persona: string, queued?: QueuedRunRef) => startsAtOnce(database.db, roomId, agentId(persona), queued);
  return { queue, run, atOnce };
}

describe("startsAtOnce", () => {
  it("is true for an idle agent in a room with a slot free", async () => {
    const { run, atOnce } = await room({ max_concurrent_runs: 2 });
    expect(await atOnce("scene-painter")).toBe(true);
    await run("songwriter");
    expect(await atOnce("scene-painter")).toBe(true);
  });

  it("is false for an agent with a run of its own queued or running", async () => {
    const { queue, run, atOnce } = await room({ max_concurrent_runs: 5 });
    await queue("scene-painter");
    await run("storyteller");
    expect(await atOnce("scene-painter")).toBe(false);
    expect(await atOnce("storyteller")).toBe(false);
  });

  it("is false when the room's running runs fill its slots", async () => {
    const { run, atOnce } = await room({ max_concurrent_runs: 2 });
    await run("songwriter");
    await run("storyteller");
    expect(await atOnce("scene-painter")).toBe(false);
  });

  it("is false when runs queued ahead take the slots left, counting one for each agent that can start", async () => {
    const { queue, run, atOnce } = await room({ max_concurrent_runs: 3 });
    await run("songwriter");
    await queue("storyteller");
    await queue("storyteller");
    // Two slots left; the Storyteller's two runs take one of them, one after the other.
    expect(await atOnce("scene-painter")).toBe(true);
    await queue("curator");
    expect(await atOnce("scene-painter")).toBe(false);
  });

  it("leaves out queued runs whose agent is at work, and counts runs whose worker died as ahead", async () => {
    const { queue, run, atOnce } = await room({ max_concurrent_runs: 2 });
    await run("songwriter");
    // The Songwriter's next run waits for its current one and takes no slot before the painter's.
    await queue("songwriter");
    expect(await atOnce("scene-painter")).toBe(true);
    // A run whose lease lapsed holds no slot, but a worker takes it again before anything queued later.
    await run("storyteller", "lapsed");
    expect(await atOnce("scene-painter")).toBe(false);
  });

  it("asked about a queued run, counts only what was queued before it", async () => {
    const { queue, run, atOnce } = await room({ max_concurrent_runs: 3 });
    await run("songwriter");
    await queue("storyteller");
    const painters = await queue("scene-painter");
    const curators = await queue("curator");
    // Two slots left: the Storyteller's run takes one and the Scene Painter's the other; the Curator's waits.
    expect(await atOnce("scene-painter", painters)).toBe(true);
    expect(await atOnce("curator", curators)).toBe(false);
    // A later run of the Scene Painter's own waits for the first.
    expect(await atOnce("scene-painter", await queue("scene-painter"))).toBe(false);
  });
});
