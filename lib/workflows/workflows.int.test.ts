import { randomUUID } from "node:crypto";
import v8 from "node:v8";
import vm from "node:vm";
import { and, eq, inArray, sql } from "drizzle-orm";
import { rowsOf } from "@/db/rows";
import { describe, expect, it } from "vitest";
import { boardEntries, buildReviews, dialogues, events, rooms, runs } from "@/db/schema";
import { GET as exportRoute } from "@/app/api/rooms/[roomId]/workflows/[correlationId]/export/route";
import { GET as workflowRoute } from "@/app/api/rooms/[roomId]/workflows/[correlationId]/route";
import { GET as listRoute } from "@/app/api/rooms/[roomId]/workflows/route";
import { readAdminRun } from "@/lib/admin/admin-runs";
import { scheduleRoom } from "@/lib/agents/scheduler";
import { MAX_RUN_ATTEMPTS } from "@/lib/agents/settle-request";
import { enqueueRun } from "@/lib/agents/enqueue-run";
import { startAgentRun } from "@/lib/agents/start-agent-run";
import { openDialogue } from "@/lib/dialogue/open-dialogue";
import { DEFAULT_ROOM_SETTINGS } from "@/lib/rooms/room-settings";
import { startBuildReview } from "@/lib/build-review/start-build-review";
import { writeRoomEvents } from "@/lib/events/write-room-events";
import { createRoom } from "@/lib/rooms/create-room";
import { getEnv } from "@/lib/env";
import { resolveModel } from "@/lib/models/registry";
import type { PayloadOf } from "@/lib/protocol";
import { agentByPersona, startTestWorker } from "@/test/agents";
import { startChatServer } from "@/test/chat-server";
import { alice, createTestRoom, eventually } from "@/test/fixtures";
import { call } from "@/test/http";
import { setAgentModel } from "@/test/mock-models";
import { params, useTestRuntime } from "@/test/test-runtime";
import { jsonRequest } from "@/test/test-runtime";

const context = useTestRuntime();

async function workerOn(server: { baseURL: string }, modelCallTimeoutMs?: number) {
  const env = { ...getEnv(), OPENAI_COMPATIBLE_BASE_URL: server.baseURL, OPENAI_COMPATIBLE_API_KEY: "k" };
  return startTestWorker(context.database, {
    resolveModel: (spec) => resolveModel(spec, { env, scriptPaceMs: 0 }),
    execute: { typingFlushMs: 10, retryDelaysMs: [20, 40, 80], modelCallTimeoutMs },
    onError: () => {},
  });
}

async function finished(roomId: string, count: number) {
  return eventually(async () => {
    const rows = await context.database.db.select().from(runs).where(eq(runs.roomId, roomId));
    expect(rows).toHaveLength(count);
    expect(rows.every((row) => row.status !== "queued" && row.status !== "running")).toBe(true);
    return rows;
  }, 20_000);
}

const workflow = (roomId: string, correlationId: string, query = "") =>
  call(workflowRoute, { url: `/api/rooms/${roomId}/workflows/${correlationId}${query}`, method: "GET", params: { roomId, correlationId } });

describe("workflows", () => {
  it("retries a provider that fails twice with 503 where the trace shows it, and the workflow completes", async () => {
    const { roomId } = await createTestRoom(context.database.db);
    const songwriter = await agentByPersona(context.database, roomId, "songwriter");
    await setAgentModel(context.database, songwriter.id, "openai-compatible:stand-in");
    const server = await startChatServer((_request, index) => (index < 2 ? { status: 503 } : { text: "A verse about the harbour." }));
    const worker = await workerOn(server);
    try {
      const run = await startAgentRun(context.database.db, roomId, { agentId: songwriter.id, prompt: "Write" }, alice);
      await finished(roomId, 1);
      expect(server.requests).toHaveLength(3);
      const answer = await workflow(roomId, run.correlationId);
      expect(answer.status).toBe(200);
      const trace = answer.body.workflow;
      // One run, tried three times: its first call and the two retries.
      expect(trace).toMatchObject({ correlationId: run.correlationId, status: "complete", runs: 1, attempts: 3 });
      const retries = trace.messages.filter((message: { type: string }) => message.type === "run.retrying");
      expect(retries.map((message: { payload: PayloadOf<"run.retrying"> }) => [message.payload.retry, message.payload.of])).toEqual([
        [1, 3],
        [2, 3],
      ]);
      expect(retries[0]).toMatchObject({ status: "pending", error_details: { error_type: "provider_error", retry_possible: true } });
      expect(trace.messages.map((message: { type: string }) => message.type)).toEqual([
        "run.queued",
        "run.started",
        "run.retrying",
        "run.retrying",
        "run.step",
        "run.finished",
      ]);
      expect(trace.durationMs).toBeGreaterThanOrEqual(0);
      const listed = await call(listRoute, { url: `/api/rooms/${roomId}/workflows`, method: "GET", params: { roomId } });
      expect(listed.body.workflows).toEqual([expect.objectContaining({ correlationId: run.correlationId, attempts: 3 })]);
      // How often workers claimed the run is not how often its work was tried.
      await context.database.db.update(runs).set({ attempts: 4 }).where(eq(runs.id, run.id));
      expect((await workflow(roomId, run.correlationId)).body.workflow.attempts).toBe(3);
    } finally {
      await worker.stop();
      await server.close();
    }
  });

  it("degrades when one agent's provider always fails, while the others go on; the trace holds the request and the question", async () => {
    const { roomId } = await createTestRoom(context.database.db, {
      broadcast: "agents",
      broadcast_sensitivity: "high",
      broadcast_timeout: 5,
    });
    const songwriter = await agentByPersona(context.database, roomId, "songwriter");
    const painter = await agentByPersona(context.database, roomId, "scene-painter");
    await setAgentModel(context.database, painter.id, "openai-compatible:stand-in");
    const server = await startChatServer(() => ({ status: 503, headers: { "retry-after": "0" } }));
    const worker = await workerOn(server);
    try {
      const run = await startAgentRun(context.database.db, roomId, { agentId: songwriter.id, prompt: "Write a verse about rain" }, alice);
      const all = await finished(roomId, 2);
      expect(all.find((row) => row.agentId === songwriter.id)!.status).toBe("succeeded");
      const failed = all.find((row) => row.agentId === painter.id)!;
      expect(failed).toMatchObject({ status: "failed", error: { error_type: "provider_error", retry_possible: true } });
      // The Songwriter's request is open again for the scheduler: the workflow goes on.
      expect((await workflow(roomId, run.correlationId)).body.workflow.status).toBe("active");
      for (let served = 2; served <= MAX_RUN_ATTEMPTS; served++) {
        await context.database.db.update(rooms).set({ lastScheduledAt: null }).where(eq(rooms.id, roomId));
        expect(await scheduleRoom(context.database.db, roomId)).toMatchObject({ kind: "request", entryId: failed.requestEntryId });
        await finished(roomId, 1 + served);
      }
      const [request] = await context.database.db.select().from(boardEntries).where(eq(boardEntries.id, failed.requestEntryId!));
      expect(request!.requestStatus).toBe("failed");

      const trace = (await workflow(roomId, run.correlationId)).body.workflow;
      expect(trace.status).toBe("degraded");
      expect(trace.runList.map((row: { agentId: string }) => row.agentId)).toEqual([
        songwriter.id,
        ...Array(MAX_RUN_ATTEMPTS).fill(painter.id),
      ]);
      // Its runs' agents, then the agents whose shadows answered the question.
      const working = trace.agents.filter((agent: { runs: number }) => agent.runs > 0);
      expect(working.map((agent: { name: string }) => agent.name).sort()).toEqual(["Scene Painter", "Songwriter"]);
      const answered = trace.messages
        .filter((message: { type: string }) => message.type === "broadcast.response")
        .map((message: { agent: string }) => message.agent);
      expect(
        trace.agents
          .slice(working.length)
          .map((agent: { id: string }) => agent.id)
          .sort(),
      ).toEqual(answered.filter((id: string) => id !== painter.id).sort());
      const types = trace.messages.map((message: { type: string }) => message.type);
      expect(types).toEqual(
        expect.arrayContaining(["broadcast.asked", "broadcast.closed", "board.posted", "run.retrying", "run.finished"]),
      );
      expect(types.filter((type: string) => type === "run.retrying")).toHaveLength(3 * MAX_RUN_ATTEMPTS);
      // Every run once, and every retry of a run's or a shadow's model call once more.
      expect(trace.attempts).toBe(
        trace.runs + types.filter((type: string) => type === "run.retrying" || type === "broadcast.retrying").length,
      );
      const finishedEvent = trace.messages.find(
        (message: { type: string; agent: string }) => message.type === "run.finished" && message.agent === painter.id,
      );
      expect(finishedEvent.error_details).toMatchObject({ error_type: "provider_error", error_message: expect.stringMatching(/HTTP 503/) });

      const listed = await call(listRoute, { url: `/api/rooms/${roomId}/workflows`, method: "GET", params: { roomId } });
      expect(listed.body.workflows).toEqual([
        expect.objectContaining({ correlationId: run.correlationId, status: "degraded", runs: 1 + MAX_RUN_ATTEMPTS }),
      ]);
    } finally {
      await worker.stop();
      await server.close();
    }
  });

  it("lists workflows newest first, page by page, each with its status, and refuses bad queries", async () => {
    const { roomId } = await createTestRoom(context.database.db);
    const storyteller = await agentByPersona(context.database, roomId, "storyteller");
    const first = await startAgentRun(context.database.db, roomId, { agentId: storyteller.id, prompt: "One" }, alice);
    await new Promise((resolve) => setTimeout(resolve, 5));
    const second = await startAgentRun(context.database.db, roomId, { agentId: storyteller.id, prompt: "Two" }, alice);
    await context.database.db.update(runs).set({ status: "failed", finishedAt: new Date() }).where(eq(runs.id, first.id));
    const list = (query = "") => call(listRoute, { url: `/api/rooms/${roomId}/workflows${query}`, method: "GET", params: { roomId } });
    const page = (await list("?limit=1")).body;
    expect(page.workflows).toEqual([
      expect.objectContaining({
        correlationId: second.correlationId,
        status: "active",
        startedBy: expect.objectContaining({ prompt: "Two" }),
      }),
    ]);
    const next = (await list(`?limit=1&cursor=${page.nextCursor}`)).body;
    expect(next.workflows).toEqual([expect.objectContaining({ correlationId: first.correlationId, status: "failed" })]);
    expect((await list(`?limit=1&cursor=${next.nextCursor}`)).body).toEqual({ workflows: [], nextCursor: null });
    const earlier = (await list(`?before=${encodeURIComponent(page.workflows[0].startedAt)}`)).body.workflows;
    expect(earlier.map((workflow: { correlationId: string }) => workflow.correlationId)).toEqual([first.correlationId]);
    for (const bad of [
      "?limit=0",
      "?limit=500",
      "?before=later",
      "?sort=asc",
      "?limit=1&limit=2",
      "?cursor=not-a-cursor",
      `?cursor=${Buffer.from("[1,2]").toString("base64url")}`,
    ]) {
      expect((await list(bad)).status, bad).toBe(400);
    }
    expect((await workflow(roomId, "no-such-workflow")).status).toBe(404);
    expect((await workflow(roomId, first.correlationId, "?after=-1")).status).toBe(400);
  });

  it("fails a workflow whose starting run failed, whatever the runs it asked for did: their work is no answer to it", async () => {
    const { roomId } = await createTestRoom(context.database.db);
    const storyteller = await agentByPersona(context.database, roomId, "storyteller");
    const painter = await agentByPersona(context.database, roomId, "scene-painter");
    const run = await startAgentRun(context.database.db, roomId, { agentId: storyteller.id, prompt: "Tell" }, alice);
    const { result: asked } = await writeRoomEvents(context.database.db, roomId, (tx, emit, at) =>
      enqueueRun(tx, emit, {
        roomId,
        agentId: painter.id,
        trigger: "request",
        requestedBy: { id: storyteller.id, name: storyteller.name },
        prompt: "Paint the harbour",
        parentRunId: run.id,
        chainDepth: 1,
        correlationId: run.correlationId,
        at,
      }),
    );
    const end = (id: string, status: "succeeded" | "failed") =>
      context.database.db.update(runs).set({ status, finishedAt: new Date() }).where(eq(runs.id, id));
    const status = async () => (await workflow(roomId, run.correlationId)).body.workflow.status;
    await end(asked!.id, "succeeded");
    await end(run.id, "failed");
    expect(await status()).toBe("failed");
    // The other way round, it has its answer: degraded.
    await end(asked!.id, "failed");
    await end(run.id, "succeeded");
    expect(await status()).toBe("degraded");
  });

  it("exports a workflow of 10,000 messages as JSON Lines, streamed in bounded memory", async () => {
    const { roomId } = await createTestRoom(context.database.db);
    const storyteller = await agentByPersona(context.database, roomId, "storyteller");
    const run = await startAgentRun(context.database.db, roomId, { agentId: storyteller.id, prompt: "Long" }, alice);
    // The room's counter, moved past the rows inserted below.
    const [{ lastSeq }] = rowsOf<{ lastSeq: number | string }>(
      await context.database.db.execute(
        sql`update rooms set last_seq = last_seq + 10000 where id = ${roomId} returning last_seq - 10000 as "lastSeq"`,
      ),
    ) as [{ lastSeq: number | string }];
    const padding = "x".repeat(3000);
    for (let batch = 0; batch < 10; batch++) {
      await context.database.db.insert(events).values(
        Array.from({ length: 1000 }, (_, index) => ({
          id: randomUUID(),
          roomId,
          seq: Number(lastSeq) + batch * 1000 + index + 1,
          correlationId: run.correlationId,
          agent: storyteller.id,
          agentName: "Storyteller",
          type: "board.request_updated",
          status: "success" as const,
          payload: { entryId: `e-${batch}-${index}`, status: "open", runId: null, padding },
        })),
      );
    }
    const response = await exportRoute(
      jsonRequest(`/api/rooms/${roomId}/workflows/${run.correlationId}/export`, "GET"),
      params({ roomId, correlationId: run.correlationId }),
    );
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toMatch(/application\/x-ndjson/);
    const reader = response.body!.getReader();
    const decoder = new TextDecoder();
    // Live memory, measured after collecting garbage: what the export holds, not what it has let go.
    v8.setFlagsFromString("--expose-gc");
    const collect = vm.runInNewContext("gc") as () => void;
    const live = () => {
      collect();
      const { heapUsed, arrayBuffers } = process.memoryUsage();
      return heapUsed + arrayBuffers;
    };
    const before = live();
    let peak = 0;
    let lines = 0;
    let bytes = 0;
    let rest = "";
    let previous = 0;
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      bytes += value.length;
      const text = rest + decoder.decode(value, { stream: true });
      const parts = text.split("\n");
      rest = parts.pop()!;
      for (const line of parts) {
        const message = JSON.parse(line) as { seq: number; correlation_id: string };
        expect(message.seq).toBeGreaterThan(previous);
        expect(message.correlation_id).toBe(run.correlationId);
        previous = message.seq;
        lines += 1;
      }
      peak = Math.max(peak, live() - before);
    }
    expect(lines).toBe(10_001);
    expect(bytes).toBeGreaterThan(30_000_000);
    // Read a page at a time (about 1.7 MB here, held a few times over as rows, text and bytes): a small
    // part of the 35 MB export is ever held. Read in one piece, it holds about 25 MB.
    expect(peak).toBeLessThan(bytes / 3);
  });

  it("serves error details that older rows stored in camelCase under the protocol's names, in the trace, the export and a run", async () => {
    const { roomId } = await createTestRoom(context.database.db);
    const songwriter = await agentByPersona(context.database, roomId, "songwriter");
    const run = await startAgentRun(context.database.db, roomId, { agentId: songwriter.id, prompt: "Write" }, alice);
    const older = { errorType: "provider_error", errorMessage: "upstream is busy (HTTP 503)", retryPossible: true };
    const named = { error_type: "provider_error", error_message: "upstream is busy (HTTP 503)", retry_possible: true };
    await context.database.db.update(runs).set({ status: "failed", finishedAt: new Date(), error: older }).where(eq(runs.id, run.id));
    // A retry and the run's end as they were stored before error details took the protocol's names.
    const [{ lastSeq }] = rowsOf<{ lastSeq: number | string }>(
      await context.database.db.execute(
        sql`update rooms set last_seq = last_seq + 2 where id = ${roomId} returning last_seq - 2 as "lastSeq"`,
      ),
    ) as [{ lastSeq: number | string }];
    const stored = { id: "", roomId, correlationId: run.correlationId, agent: songwriter.id, agentName: "Songwriter", errorDetails: older };
    const totals = { steps: 0, attempts: 1, durationMs: 5, inputTokens: 0, outputTokens: 0, costUsd: 0 };
    await context.database.db.insert(events).values([
      {
        ...stored,
        id: randomUUID(),
        seq: Number(lastSeq) + 1,
        type: "run.retrying",
        status: "pending",
        payload: { runId: run.id, agentId: songwriter.id, step: 0, retry: 1, of: 3, delayMs: 1000, error: older },
      },
      {
        ...stored,
        id: randomUUID(),
        seq: Number(lastSeq) + 2,
        type: "run.finished",
        status: "error",
        payload: { runId: run.id, agentId: songwriter.id, status: "failed", error: older, ...totals },
      },
    ]);

    const trace = (await workflow(roomId, run.correlationId)).body.workflow;
    expect(trace).toMatchObject({ status: "failed", attempts: 2 });
    expect(trace.runList[0].error).toEqual(named);
    const failures = trace.messages.filter(
      (message: { type: string }) => message.type === "run.retrying" || message.type === "run.finished",
    );
    expect(failures).toHaveLength(2);
    for (const message of failures) expect(message, message.type).toMatchObject({ error_details: named, payload: { error: named } });

    const response = await exportRoute(
      jsonRequest(`/api/rooms/${roomId}/workflows/${run.correlationId}/export`, "GET"),
      params({ roomId, correlationId: run.correlationId }),
    );
    const lines = (await response.text())
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as { type: string; error_details: unknown; payload: { error?: unknown } });
    expect(lines.filter((line) => line.error_details !== null).map((line) => [line.type, line.error_details, line.payload.error])).toEqual([
      ["run.retrying", named, named],
      ["run.finished", named, named],
    ]);

    const detail = await readAdminRun(context.database.db, run.id);
    expect(detail.run.error).toEqual(named);
    expect(detail.retries).toEqual([expect.objectContaining({ retry: 1, error: named })]);
  });

  it("stores one event for the same write replayed 100 times at once", async () => {
    const { roomId } = await createTestRoom(context.database.db);
    const storyteller = await agentByPersona(context.database, roomId, "storyteller");
    const results = await Promise.all(
      Array.from({ length: 100 }, () =>
        startAgentRun(context.database.db, roomId, { agentId: storyteller.id, prompt: "Once" }, alice, { idempotencyKey: "same-write" }),
      ),
    );
    expect(new Set(results.map((run) => run.id)).size).toBe(1);
    const queued = await context.database.db
      .select()
      .from(events)
      .where(and(eq(events.roomId, roomId), eq(events.type, "run.queued")));
    expect(queued).toHaveLength(1);
  });

  it("pages through workflows that start in the same millisecond without skipping one", async () => {
    const { roomId } = await createTestRoom(context.database.db);
    const storyteller = await agentByPersona(context.database, roomId, "storyteller");
    const started = [];
    for (const prompt of ["A", "B", "C", "D", "E"])
      started.push(await startAgentRun(context.database.db, roomId, { agentId: storyteller.id, prompt }, alice));
    // Four of them at one instant, as a busy room can start them.
    const instant = new Date("2030-01-01T00:00:00.123Z");
    await context.database.db
      .update(runs)
      .set({ createdAt: instant })
      .where(
        inArray(
          runs.id,
          started.slice(0, 4).map((run) => run.id),
        ),
      );
    const seen: string[] = [];
    let cursor: string | null = "";
    while (cursor !== null) {
      const answer: { status: number; body: { workflows: { correlationId: string }[]; nextCursor: string | null } } = await call(
        listRoute,
        {
          url: `/api/rooms/${roomId}/workflows?limit=2${cursor ? `&cursor=${cursor}` : ""}`,
          method: "GET",
          params: { roomId },
        },
      );
      expect(answer.status).toBe(200);
      seen.push(...answer.body.workflows.map((workflow: { correlationId: string }) => workflow.correlationId));
      cursor = answer.body.nextCursor;
    }
    expect(seen).toHaveLength(5);
    expect(new Set(seen)).toEqual(new Set(started.map((run) => run.correlationId)));
    // Newest first: the four at the later instant, then the one started now.
    expect(seen.at(-1)).toBe(started[4]!.correlationId);
  });

  it("times out a provider that hangs, retries the call where the trace shows it, and the run completes", async () => {
    const { roomId } = await createTestRoom(context.database.db);
    const songwriter = await agentByPersona(context.database, roomId, "songwriter");
    await setAgentModel(context.database, songwriter.id, "openai-compatible:stand-in");
    const server = await startChatServer((_request, index) => (index === 0 ? { hang: true } : { text: "A verse about the harbour." }));
    const worker = await workerOn(server, 2500);
    try {
      const run = await startAgentRun(context.database.db, roomId, { agentId: songwriter.id, prompt: "Write" }, alice);
      const [finishedRun] = await finished(roomId, 1);
      expect(finishedRun).toMatchObject({ status: "succeeded" });
      const trace = (await workflow(roomId, run.correlationId)).body.workflow;
      expect(trace.status).toBe("complete");
      const retries = trace.messages.filter((message: { type: string }) => message.type === "run.retrying");
      expect(retries[0]).toMatchObject({
        status: "pending",
        error_details: { error_type: "timeout", error_message: "The model did not answer within 2.5 s.", retry_possible: true },
        payload: { retry: 1, of: 3 },
      });
      // One retry, unless a busy machine held the stand-in's answer as long again.
      expect(retries.every((retry: { error_details: { error_type: string } }) => retry.error_details.error_type === "timeout")).toBe(true);
      expect(server.requests.length).toBeGreaterThanOrEqual(2);
    } finally {
      await worker.stop();
      await server.close();
    }
  });

  it("fails a run whose provider always hangs with a timeout once its retries are spent", async () => {
    const { roomId } = await createTestRoom(context.database.db);
    const songwriter = await agentByPersona(context.database, roomId, "songwriter");
    await setAgentModel(context.database, songwriter.id, "openai-compatible:stand-in");
    const server = await startChatServer(() => ({ hang: true }));
    const worker = await workerOn(server, 150);
    try {
      const run = await startAgentRun(context.database.db, roomId, { agentId: songwriter.id, prompt: "Write" }, alice);
      const [failed] = await finished(roomId, 1);
      expect(failed).toMatchObject({ status: "failed", error: { error_type: "timeout", retry_possible: true } });
      expect(server.requests).toHaveLength(4);
      expect((await workflow(roomId, run.correlationId)).body.workflow.status).toBe("failed");
    } finally {
      await worker.stop();
      await server.close();
    }
  });

  it("retries a shadow whose provider hangs where the question's workflow shows it, and stores its answer", async () => {
    const { roomId } = await createTestRoom(context.database.db, {
      broadcast: "agents",
      broadcast_sensitivity: "high",
      broadcast_timeout: 20,
    });
    const songwriter = await agentByPersona(context.database, roomId, "songwriter");
    const painter = await agentByPersona(context.database, roomId, "scene-painter");
    await setAgentModel(context.database, painter.id, "openai-compatible:stand-in");
    let shadowCalls = 0;
    // A shadow's call offers no tools; its first one hangs.
    const server = await startChatServer((request) =>
      !request.tools && shadowCalls++ === 0 ? { hang: true } : { text: "Blue hour light over the harbour." },
    );
    const worker = await workerOn(server, 2500);
    try {
      const run = await startAgentRun(context.database.db, roomId, { agentId: songwriter.id, prompt: "Write a verse about rain" }, alice);
      await finished(roomId, 2);
      expect(shadowCalls).toBeGreaterThanOrEqual(2);
      const trace = (await workflow(roomId, run.correlationId)).body.workflow;
      const retry = trace.messages.find((message: { type: string }) => message.type === "broadcast.retrying");
      expect(retry).toMatchObject({
        agent: painter.id,
        target_agent: songwriter.id,
        status: "pending",
        error_details: { error_type: "timeout", retry_possible: true },
        payload: { responderId: painter.id, retry: 1, of: 3 },
      });
      // A shadow's retry is one more attempt of the workflow's work, as a run's is.
      const retried = trace.messages.filter(
        (message: { type: string }) => message.type === "run.retrying" || message.type === "broadcast.retrying",
      );
      expect(trace.attempts).toBe(trace.runs + retried.length);
      expect(trace.attempts).toBeGreaterThan(trace.runs);
      const answer = trace.messages.find(
        (message: { type: string; agent: string }) => message.type === "broadcast.response" && message.agent === painter.id,
      );
      expect(answer.payload.response).toMatchObject({ content: "Blue hour light over the harbour." });
      // The stand-in has no price: what the painter spent, its shadow included, is not a known cost.
      expect(trace).toMatchObject({ status: "complete", costKnown: false });
      expect(trace.agents.find((agent: { id: string }) => agent.id === painter.id)).toMatchObject({ costKnown: false });
      expect(trace.agents.find((agent: { id: string }) => agent.id === songwriter.id)).toMatchObject({ costKnown: true });
    } finally {
      await worker.stop();
      await server.close();
    }
  });

  it("counts a workflow's cost as known only when every model that spent in it has a price", async () => {
    const { roomId } = await createTestRoom(context.database.db);
    const storyteller = await agentByPersona(context.database, roomId, "storyteller");
    const run = await startAgentRun(context.database.db, roomId, { agentId: storyteller.id, prompt: "Tell" }, alice);
    const read = async () => (await workflow(roomId, run.correlationId)).body.workflow;
    // Nothing spent yet: nothing unknown.
    await setAgentModel(context.database, storyteller.id, "openai-compatible:unpriced");
    expect(await read()).toMatchObject({ costUsd: 0, costKnown: true });
    await context.database.db.update(runs).set({ inputTokens: 100, outputTokens: 10 }).where(eq(runs.id, run.id));
    expect(await read()).toMatchObject({ costUsd: 0, costKnown: false, inputTokens: 100, outputTokens: 10 });
    const listed = await call(listRoute, { url: `/api/rooms/${roomId}/workflows`, method: "GET", params: { roomId } });
    expect(listed.body.workflows[0]).toMatchObject({ costKnown: false });
    await setAgentModel(context.database, storyteller.id, "script:storyteller");
    expect(await read()).toMatchObject({ costKnown: true });
  });

  it("stays active while a board request of it waits for the scheduler, and ends once the request is answered or expires unserved", async () => {
    const { roomId } = await createTestRoom(context.database.db);
    const songwriter = await agentByPersona(context.database, roomId, "songwriter");
    await setAgentModel(context.database, songwriter.id, "openai-compatible:stand-in");
    // The Songwriter asks the Scene Painter through the board and ends its run.
    const server = await startChatServer((request) => {
      if (request.messages.some((message) => message.role === "tool")) return { text: "Asked the Scene Painter on the board." };
      const content = { targetPersona: "scene-painter", ask: "Paint the harbour at dusk", refNodeIds: [] };
      return { toolCall: { name: "share_creative_context", arguments: { entryType: "request", content } } };
    });
    const worker = await workerOn(server);
    try {
      const run = await startAgentRun(
        context.database.db,
        roomId,
        { agentId: songwriter.id, prompt: "Write a verse about the harbour" },
        alice,
      );
      await finished(roomId, 1);
      const [request] = await context.database.db.select().from(boardEntries).where(eq(boardEntries.roomId, roomId));
      expect(request).toMatchObject({ kind: "request", requestStatus: "open", runId: run.id });
      const status = async () => (await workflow(roomId, run.correlationId)).body.workflow.status;
      // Its only run succeeded, but the request it made is still to be served.
      expect(await status()).toBe("active");
      const listed = await call(listRoute, { url: `/api/rooms/${roomId}/workflows`, method: "GET", params: { roomId } });
      expect(listed.body.workflows).toEqual([expect.objectContaining({ correlationId: run.correlationId, status: "active" })]);

      // A request that expired unserved is never served: it holds nothing open.
      await context.database.db
        .update(boardEntries)
        .set({ expiresAt: new Date(Date.now() - 1000) })
        .where(eq(boardEntries.id, request!.id));
      expect(await status()).toBe("complete");
      await context.database.db.update(boardEntries).set({ expiresAt: request!.expiresAt }).where(eq(boardEntries.id, request!.id));
      expect(await status()).toBe("active");

      // The scheduler serves it in the same workflow; once the Scene Painter has answered, it is complete.
      expect(await scheduleRoom(context.database.db, roomId)).toMatchObject({ kind: "request", entryId: request!.id });
      await finished(roomId, 2);
      const [answered] = await context.database.db.select().from(boardEntries).where(eq(boardEntries.id, request!.id));
      expect(answered!.requestStatus).toBe("answered");
      expect((await workflow(roomId, run.correlationId)).body.workflow).toMatchObject({ status: "complete", runs: 2 });
    } finally {
      await worker.stop();
      await server.close();
    }
  });

  it("stays active while a dialogue or a build review of it is open, whatever its runs say", async () => {
    const { roomId } = await createTestRoom(context.database.db);
    const storyteller = await agentByPersona(context.database, roomId, "storyteller");
    const painter = await agentByPersona(context.database, roomId, "scene-painter");
    const run = await startAgentRun(context.database.db, roomId, { agentId: storyteller.id, prompt: "Tell" }, alice);
    const status = async (correlationId: string, room = roomId) => (await workflow(room, correlationId)).body.workflow.status;
    const endRuns = (correlationId: string) =>
      context.database.db.update(runs).set({ status: "succeeded", finishedAt: new Date() }).where(eq(runs.correlationId, correlationId));
    await endRuns(run.correlationId);
    expect(await status(run.correlationId)).toBe("complete");
    const { result: dialogue } = await writeRoomEvents(context.database.db, roomId, (tx, emit, at) =>
      openDialogue(tx, emit, {
        roomId,
        correlationId: run.correlationId,
        asker: storyteller,
        addressee: painter,
        topic: "Which light?",
        reason: "question",
        settings: DEFAULT_ROOM_SETTINGS,
        buildReviewId: null,
        chainDepth: 0,
        parentRunId: run.id,
        at,
      }),
    );
    // Its turn has ended, but the dialogue has not.
    await endRuns(run.correlationId);
    expect(await status(run.correlationId)).toBe("active");
    await context.database.db.update(dialogues).set({ status: "unresolved" }).where(eq(dialogues.id, dialogue!.id));
    expect(await status(run.correlationId)).toBe("complete");

    const { room } = await createRoom(context.database.db, { title: "Review", template: "build-review" });
    const started = await startBuildReview(context.database.db, room.id, "Count words", { id: "human:ada", name: "Ada" });
    await endRuns(started.correlation_id);
    expect(await status(started.correlation_id, room.id)).toBe("active");
    // Not approved is an outcome a review may reach, not a failure.
    await context.database.db.update(buildReviews).set({ status: "not_approved" }).where(eq(buildReviews.roomId, room.id));
    expect(await status(started.correlation_id, room.id)).toBe("complete");
  });
});
