import { randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import { runSteps, runs } from "@/db/schema";
import { runRow } from "@/test/builders";
import { createTestRoom } from "@/test/fixtures";
import { useTestRuntime } from "@/test/test-runtime";
import { getRoomSnapshot } from "./get-room-snapshot";

const context = useTestRuntime();

describe("a room's first snapshot", () => {
  it("shows a run under way with what its saved steps used, and a finished run with its row's totals", async () => {
    const { db } = context.database;
    const { roomId, agents } = await createTestRoom(db);
    const agentId = agents[0]!.id;
    const usage = { inputTokens: 900, outputTokens: 90, costUsd: 0.09 };
    // The row already counts a call of a step whose own event is not written yet.
    const [working, waiting, done] = [randomUUID(), randomUUID(), randomUUID()];
    await db
      .insert(runs)
      .values([
        runRow({ id: working, roomId, agentId, status: "running", steps: 1, ...usage }),
        runRow({ id: waiting, roomId, agentId, status: "queued", ...usage }),
        runRow({ id: done, roomId, agentId, status: "succeeded", steps: 2, ...usage }),
      ]);
    await db
      .insert(runSteps)
      .values({ runId: working, step: 0, attempt: 1, messages: [], inputTokens: 400, outputTokens: 40, costUsd: 0.04 });

    const snapshot = await getRoomSnapshot(db, roomId);
    const figures = (id: string) => {
      const run = snapshot.runs.find((candidate) => candidate.id === id)!;
      return { inputTokens: run.inputTokens, outputTokens: run.outputTokens, costUsd: run.costUsd };
    };
    expect(figures(working)).toEqual({ inputTokens: 400, outputTokens: 40, costUsd: 0.04 });
    expect(figures(waiting)).toEqual({ inputTokens: 0, outputTokens: 0, costUsd: 0 });
    expect(figures(done)).toEqual(usage);
  });
});
