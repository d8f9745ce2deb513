import { MockLanguageModelV4 } from "ai/test";
import { and, eq } from "drizzle-orm";
import { afterEach, describe, expect, it, vi } from "vitest";
import { buildReviews, runs } from "@/db/schema";
import { executeRun } from "@/lib/agents/execute-run";
import { startBuildReview } from "@/lib/build-review/start-build-review";
import { readEventsAfter } from "@/lib/events/read-events";
import { createRoom } from "@/lib/rooms/create-room";
import { agentByPersona } from "@/test/agents";
import { alice } from "@/test/fixtures";
import { call } from "@/test/http";
import { mockResolver, setAgentModel } from "@/test/mock-models";
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
  });
});
