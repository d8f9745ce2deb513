import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { brainstorms, buildReviews, runs } from "@/db/schema";
import { type TracePart, registerWorkflow, registeredWorkflows } from "@/lib/agents/workflow-registry";
import { startAgentRun } from "@/lib/agents/start-agent-run";
import { brainstormTrace } from "@/lib/brainstorm/brainstorm-trace";
import { startBrainstorm } from "@/lib/brainstorm/start-brainstorm";
import { reviewTrace } from "@/lib/build-review/review-trace";
import { startBuildReview } from "@/lib/build-review/start-build-review";
import { writeRoomEvents } from "@/lib/events/write-room-events";
import { createRoom } from "@/lib/rooms/create-room";
import { agentByPersona } from "@/test/agents";
import { alice, createTestRoom } from "@/test/fixtures";
import { useTestRuntime } from "@/test/test-runtime";
import { listWorkflows, readWorkflow } from "./read-workflow";

const context = useTestRuntime();

/** A template that reports, for the workflows it is told about, whatever part the test gives it. */
const reported = new Map<string, TracePart>();
registerWorkflow({
  name: "trace-probe",
  trace: {
    outcomeEvents: ["edge.deleted"],
    parts: async (_db, _roomId, correlationIds) =>
      new Map(correlationIds.flatMap((id) => (reported.has(id) ? [[id, reported.get(id)!]] : []))),
  },
});

async function endedWorkflow(status: "succeeded" | "failed") {
  const { roomId } = await createTestRoom(context.database.db);
  const storyteller = await agentByPersona(context.database, roomId, "storyteller");
  const run = await startAgentRun(context.database.db, roomId, { agentId: storyteller.id, prompt: "Tell" }, alice);
  const runEnd = new Date(Date.now() + 1000);
  await context.database.db.update(runs).set({ status, finishedAt: runEnd }).where(eq(runs.id, run.id));
  return { roomId, correlationId: run.correlationId, runEnd };
}

describe("a workflow's trace, from its templates' parts", () => {
  it("shows what a registered template reports of its part: open, its final output, its end", async () => {
    const { roomId, correlationId, runEnd } = await endedWorkflow("failed");
    const trace = () => readWorkflow(context.database.db, roomId, correlationId);
    // No part reported: the first run's failure is the workflow's.
    expect(await trace()).toMatchObject({ status: "failed", endedAt: runEnd.toISOString() });

    reported.set(correlationId, { open: 1 });
    expect(await trace()).toMatchObject({ status: "active", endedAt: null, durationMs: null });
    expect((await listWorkflows(context.database.db, roomId)).workflows).toEqual([
      expect.objectContaining({ correlationId, status: "active" }),
    ]);

    const partEnd = new Date(runEnd.getTime() + 60_000);
    reported.set(correlationId, { open: 0, finalOutput: true, finishedAt: partEnd });
    expect(await trace()).toMatchObject({ status: "degraded", endedAt: partEnd.toISOString() });
    reported.set(correlationId, { open: 0, finalOutput: false, finishedAt: null });
    expect(await trace()).toMatchObject({ status: "failed", endedAt: runEnd.toISOString() });
  });

  it("counts an error event a template names as one of its outcomes as no failure", async () => {
    const { roomId, correlationId } = await endedWorkflow("succeeded");
    const failing = { actor: alice, correlationId, status: "error" } as const;
    await writeRoomEvents(context.database.db, roomId, async (_tx, emit) => {
      emit({ type: "edge.deleted", payload: { edgeId: "e" }, ...failing });
    });
    expect((await readWorkflow(context.database.db, roomId, correlationId)).status).toBe("complete");
    await writeRoomEvents(context.database.db, roomId, async (_tx, emit) => {
      emit({ type: "edge.updated", payload: { edgeId: "e", label: "l" }, ...failing });
    });
    expect((await readWorkflow(context.database.db, roomId, correlationId)).status).toBe("degraded");
  });

  it("asks every template registered from the composition root for its part", () => {
    expect(registeredWorkflows().flatMap((module) => (module.trace ? [module.name] : []))).toEqual([
      "brainstorm",
      "build-review",
      "dialogue",
      "trace-probe",
    ]);
  });

  it("has a build review report its Reviewer's verdict as the final output, and its open rounds", async () => {
    const { room } = await createRoom(context.database.db, { title: "Review", template: "build-review" });
    const started = await startBuildReview(context.database.db, room.id, "Count words", { id: "human:ada", name: "Ada" });
    const part = async () =>
      (await reviewTrace.parts(context.database.db, room.id, [started.correlation_id, "other"])).get(started.correlation_id);
    expect(await part()).toEqual({ open: 1, finalOutput: false, finishedAt: null });
    const closedAt = new Date();
    await context.database.db
      .update(buildReviews)
      .set({ status: "not_approved", finishedAt: closedAt })
      .where(eq(buildReviews.roomId, room.id));
    // A brief written is no reviewed code.
    expect(await part()).toEqual({ open: 0, finalOutput: false, finishedAt: closedAt });
    await context.database.db
      .update(buildReviews)
      .set({ lastVerdict: { verdict: "changes", issues: [], openQuestions: [], version: 1, round: 1 } })
      .where(eq(buildReviews.roomId, room.id));
    // A verdict is, even one asking for changes.
    expect(await part()).toMatchObject({ open: 0, finalOutput: true });
  });

  it("has a brainstorm report its deliverable as the final output, and stay open at its gate", async () => {
    const { room } = await createRoom(context.database.db, { title: "Ideas", template: "brainstorm" });
    const started = await startBrainstorm(context.database.db, room.id, "How might we keep a harbour town lively in winter?", alice);
    const [row] = await context.database.db.select().from(brainstorms).where(eq(brainstorms.roomId, room.id));
    const part = async () => (await brainstormTrace.parts(context.database.db, room.id, [row!.correlationId])).get(row!.correlationId);
    expect(started).toBeTruthy();
    expect(await part()).toEqual({ open: 1, finalOutput: false, finishedAt: null });
    await context.database.db.update(brainstorms).set({ status: "awaiting_gate" }).where(eq(brainstorms.id, row!.id));
    expect((await part())?.open).toBe(1);
    const stoppedAt = new Date();
    await context.database.db.update(brainstorms).set({ status: "cancelled", finishedAt: stoppedAt }).where(eq(brainstorms.id, row!.id));
    // Stages that went well are no deliverable.
    expect(await part()).toEqual({ open: 0, finalOutput: false, finishedAt: stoppedAt });
    await context.database.db
      .update(brainstorms)
      .set({ status: "complete", deliverable: "A winter market" })
      .where(eq(brainstorms.id, row!.id));
    expect(await part()).toMatchObject({ open: 0, finalOutput: true });
  });
});
