import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { vaultInsights } from "@/db/schema";
import { AppError } from "@/lib/errors";
import { agentByPersona } from "@/test/agents";
import { createTestRoom } from "@/test/fixtures";
import { useTwoInstances } from "@/test/two-instances";
import { updateKnowledge } from "./update-knowledge";
import { VAULT_LIMITS, readVault } from "./vault";

// Each instance writes in a room of its own, so the rooms' write locks do not serialise them and only the
// vault's own lock can.
const context = useTwoInstances();

/** One identity's agent (a vault of its own in this file) in two rooms, each room written by one instance. */
async function inTwoRooms(persona: string) {
  const rooms = [await createTestRoom(context.database.db), await createTestRoom(context.database.db)];
  const writers = await Promise.all(
    rooms.map(async ({ roomId }, index) => ({
      roomId,
      instance: context.instances[index]!,
      agent: await agentByPersona(context.database, roomId, persona),
    })),
  );
  expect(writers[0]!.agent.identity).toBe(writers[1]!.agent.identity);
  return { identity: writers[0]!.agent.identity, writers };
}

describe("the knowledge vault across two app instances (PostgreSQL)", () => {
  it("loses no insight and no expertise when two instances update it at once", async () => {
    const { identity, writers } = await inTwoRooms("storyteller");
    const PER_INSTANCE = 30;
    await Promise.all(
      writers.map(({ roomId, instance, agent }, index) =>
        Promise.all(
          Array.from({ length: PER_INSTANCE }, (_, count) =>
            updateKnowledge(instance.db, {
              roomId,
              agent,
              correlationId: "c",
              update: { insight: `Insight ${index}-${count}`, area: "endings", amount: 1 },
            }),
          ),
        ),
      ),
    );
    const insights = await context.database.db
      .select({ text: vaultInsights.text })
      .from(vaultInsights)
      .where(eq(vaultInsights.identity, identity));
    expect(insights).toHaveLength(2 * PER_INSTANCE);
    // Every raise counted: one lost to a concurrent read-then-write would leave the level short.
    expect((await readVault(context.database.db, identity)).areas).toEqual([{ area: "endings", level: 2 * PER_INSTANCE }]);
  });

  it("keeps to the limit of areas when two instances add new ones at once: the rest are refused", async () => {
    const { identity, writers } = await inTwoRooms("songwriter");
    const settled = await Promise.all(
      writers.flatMap(({ roomId, instance, agent }, index) =>
        Array.from({ length: 15 }, (_, count) =>
          updateKnowledge(instance.db, { roomId, agent, correlationId: "c", update: { area: `area ${index} ${count}` } }).then(
            () => "added",
            (error: unknown) => {
              if (error instanceof AppError && error.status === 400 && /already track 20 areas/.test(error.message)) return "refused";
              throw error;
            },
          ),
        ),
      ),
    );
    expect(settled.filter((outcome) => outcome === "added")).toHaveLength(VAULT_LIMITS.areas);
    expect(settled.filter((outcome) => outcome === "refused")).toHaveLength(30 - VAULT_LIMITS.areas);
    expect((await readVault(context.database.db, identity)).areas).toHaveLength(VAULT_LIMITS.areas);
  });
});
