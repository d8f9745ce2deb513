import { asc, eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { usageHourly } from "@/db/schema";
import { PendingModelCalls } from "@/lib/agents/record-model-call";
import { startAgentRun } from "@/lib/agents/start-agent-run";
import { deleteRoom } from "@/lib/rooms/delete-room";
import { updateAgent } from "@/lib/rooms/update-agent";
import { agentByPersona } from "@/test/agents";
import { alice, createTestRoom } from "@/test/fixtures";
import { useTestRuntime } from "@/test/test-runtime";
import { addUsage } from "./record-usage";

const context = useTestRuntime();

const HOUR = 3_600_000;

describe("usage by agent-hour", () => {
  it("adds every model call of a run and of its agent's shadow to the agent's hour and model, and keeps it when the room goes", async () => {
    const db = context.database.db;
    const { roomId } = await createTestRoom(db);
    const songwriter = await agentByPersona(context.database, roomId, "songwriter");
    const run = await startAgentRun(db, roomId, { agentId: songwriter.id, prompt: "Write about rain" }, alice);
    const calls = new PendingModelCalls(run.id, { db });
    calls.add({ attempt: 1, call: 0, step: 0, inputTokens: 100, outputTokens: 20, costUsd: 0.01 });
    calls.add({ attempt: 1, call: 1, step: 1, inputTokens: 200, outputTokens: 30, costUsd: 0.02 });
    await calls.flush();
    await db.execute(addUsage({ agentId: songwriter.id }, { calls: 1, inputTokens: 10, outputTokens: 5, costUsd: 0.001 }));

    const rows = () => db.select().from(usageHourly).where(eq(usageHourly.agentId, songwriter.id)).orderBy(asc(usageHourly.model));
    const [first, ...others] = await rows();
    expect(others).toHaveLength(0);
    expect(first).toMatchObject({
      model: songwriter.model,
      roomId,
      identity: songwriter.identity,
      agentName: "Songwriter",
      calls: 3,
      inputTokens: 310,
      outputTokens: 55,
    });
    expect(first!.costUsd).toBeCloseTo(0.031, 10);
    expect(first!.hour.getTime() % HOUR).toBe(0);
    expect(Date.now() - first!.hour.getTime()).toBeLessThan(HOUR + 60_000);

    // Calls after a model change are the new model's.
    await updateAgent(db, roomId, songwriter.id, { model: "openai:gpt-5" });
    calls.add({ attempt: 1, call: 2, step: 2, inputTokens: 50, outputTokens: 5, costUsd: 0.5 });
    await calls.flush();
    expect((await rows()).map((row) => [row.model, row.calls, row.inputTokens])).toEqual([
      ["openai:gpt-5", 1, 50],
      [songwriter.model, 3, 310],
    ]);

    await deleteRoom(db, roomId);
    expect(await rows()).toHaveLength(2);
  });
});
