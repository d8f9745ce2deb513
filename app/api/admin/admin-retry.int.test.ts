import { randomUUID } from "node:crypto";
import { MockLanguageModelV4 } from "ai/test";
import { and, eq } from "drizzle-orm";
import { afterEach, describe, expect, it, vi } from "vitest";
import { buildReviews, runs } from "@/db/schema";
import { executeRun } from "@/lib/agents/execute-run";
import { startBuildReview } from "@/lib/build-review/start-build-review";
import { readEventsAfter } from "@/lib/events/read-events";
import { createRoom } from "@/lib/rooms/create-room";
import type { PayloadOf } from "@/lib/protocol";
import { agentByPersona } from "@/test/agents";
import { alice } from "@/test/fixtures";
import { call } from "@/test/http";
import { mockResolver, scriptedSteps, setAgentModel, textStep, toolStep } from "@/test/mock-models";
import { useTestRuntime } from "@/test/test-runtime";
import { POST as retry } from "./runs/[runId]/retry/route";

const TOKEN = "admin-token-for-retry-tests-0123";
const context = useTestRuntime();
const db = () => context.database.db;
const post = (runId: string) =>
  call(retry, {
    url: `/api/admin/runs/${runId}/retry`,
    method: "POST",
    params: { runId },
    headers: { authorization: `Bearer ${TOKEN}` },
  });

afterEach(() => {
  vi.unstubAllEnvs();
});

describe("an admin's retry of a failed run", () => {
  it("is refused for a step of a build review that has closed, writing nothing into the review", async () => {
    vi.stubEnv("ADMIN_TOKEN", TOKEN);
    const { room } = await createRoom(db(), { title: "Review", template: "build-review" }, {});
    const { review } = (await startBuildReview(db(), room.id, "Write a function that adds two numbers.", alice)).payload;
    const architect = await agentByPersona(context.database, room.id, "architect");
    await setAgentModel(context.database, architect.id, "mock:broken");
    const broken = new MockLanguageModelV4({
      doStream: async () => {
        throw new Error("The model broke.");
      },
    });
    // Claimed by hand: other tests' runs wait in the queue, and are not this test's to run.
    const [claimed] = await db()
      .update(runs)
      .set({ status: "running", leaseOwner: "dashboard-test-worker", leaseExpiresAt: new Date(Date.now() + 60_000), attempts: 1 })
      .where(and(eq(runs.roomId, room.id), eq(runs.status, "queued")))
      .returning();
    expect(claimed?.purpose).toMatchObject({ kind: "brief", buildReviewId: review.id });
    const outcome = await executeRun(
      { database: context.database, bus: context.runtime.bus, resolveModel: mockResolver({ broken }) },
      claimed!,
      { owner: "dashboard-test-worker", signal: new AbortController().signal, stopReason: () => null },
    );
    expect(outcome?.status).toBe("failed");
    // The failed brief closed the review.
    const [closed] = await db().select().from(buildReviews).where(eq(buildReviews.id, review.id));
    expect(closed!.status).toBe("not_approved");
    const before = (await readEventsAfter(db(), room.id, 0)).length;

    const refused = await post(claimed!.id);
    expect(refused.status).toBe(409);
    expect(refused.body.error.message).toMatch(
      /was a step of a build review that has closed \(not approved\); a retry would write into what is closed/,
    );
    // Nothing queued, nothing logged, the review as it was.
    expect((await db().select().from(runs).where(eq(runs.roomId, room.id))).map((each) => each.status)).toEqual(["failed"]);
    expect((await readEventsAfter(db(), room.id, 0)).length).toBe(before);
    const [after] = await db().select().from(buildReviews).where(eq(buildReviews.id, review.id));
    expect(after).toEqual(closed);

    // A code step that runs after all (queued before the review closed) writes no code into it either.
    const coder = await agentByPersona(context.database, room.id, "coder");
    await setAgentModel(context.database, coder.id, "mock:coding");
    const coding = scriptedSteps([
      toolStep([
        { id: "c", name: "submit_code", input: { language: "typescript", code: "export const add = (a: number, b: number) => a + b;" } },
      ]),
      textStep("Done."),
    ]);
    const [late] = await db()
      .insert(runs)
      .values({
        id: randomUUID(),
        roomId: room.id,
        agentId: coder.id,
        status: "running",
        trigger: "request",
        requestedBy: "system",
        prompt: "Write the code.",
        correlationId: claimed!.correlationId,
        purpose: { kind: "code", buildReviewId: review.id },
        leaseOwner: "dashboard-test-worker",
        leaseExpiresAt: new Date(Date.now() + 60_000),
        attempts: 1,
      })
      .returning();
    await executeRun({ database: context.database, bus: context.runtime.bus, resolveModel: mockResolver({ coding }) }, late!, {
      owner: "dashboard-test-worker",
      signal: new AbortController().signal,
      stopReason: () => null,
    });
    const [still] = await db().select().from(buildReviews).where(eq(buildReviews.id, review.id));
    expect(still).toMatchObject({ status: "not_approved", codeVersion: 0, codeNodeId: null });
    const step = (await readEventsAfter(db(), room.id, 0)).find(
      (event) => event.type === "run.step" && (event.payload as PayloadOf<"run.step">).runId === late!.id,
    );
    expect((step!.payload as PayloadOf<"run.step">).toolResults).toEqual([
      expect.objectContaining({
        name: "submit_code",
        output: { ok: false, error: "This build review has closed (not approved); no more code goes into it." },
      }),
    ]);
  });
});
