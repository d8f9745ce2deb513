import { randomUUID } from "node:crypto";
import v8 from "node:v8";
import vm from "node:vm";
import { and, eq, sql } from "drizzle-orm";
import { rowsOf } from "@/db/rows";
import { describe, expect, it } from "vitest";
import { events, runs } from "@/db/schema";
import { GET as exportRoute } from "@/app/api/rooms/[roomId]/workflows/[correlationId]/export/route";
import { GET as workflowRoute } from "@/app/api/rooms/[roomId]/workflows/[correlationId]/route";
import { GET as listRoute } from "@/app/api/rooms/[roomId]/workflows/route";
import { startAgentRun } from "@/lib/agents/start-agent-run";
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

async function workerOn(server: { baseURL: string }) {
  const env = { ...getEnv(), OPENAI_COMPATIBLE_BASE_URL: server.baseURL, OPENAI_COMPATIBLE_API_KEY: "k" };
  return startTestWorker(context.database, {
    resolveModel: (spec) => resolveModel(spec, { env, scriptPaceMs: 0 }),
    execute: { typingFlushMs: 10, retryDelaysMs: [20, 40, 80] },
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
      expect(trace).toMatchObject({ correlationId: run.correlationId, status: "complete", runs: 1, attempts: 1 });
      const retries = trace.messages.filter((message: { type: string }) => message.type === "run.retrying");
      expect(retries.map((message: { payload: PayloadOf<"run.retrying"> }) => [message.payload.retry, message.payload.of])).toEqual([
        [1, 3],
        [2, 3],
      ]);
      expect(retries[0]).toMatchObject({ status: "pending", error_details: { errorType: "provider_error", retryPossible: true } });
      expect(trace.messages.map((message: { type: string }) => message.type)).toEqual(["run.queued", "run.started", "run.retrying", "run.retrying", "run.step", "run.finished"]);
      expect(trace.durationMs).toBeGreaterThanOrEqual(0);
    } finally {
      await worker.stop();
      await server.close();
    }
  });

  it("degrades when one agent's provider always fails, while the others go on; the trace holds the request and the question", async () => {
    const { roomId } = await createTestRoom(context.database.db, { broadcast: "agents", broadcast_sensitivity: "high", broadcast_timeout: 5 });
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
      expect(failed).toMatchObject({ status: "failed", error: { errorType: "provider_error", retryPossible: true } });

      const trace = (await workflow(roomId, run.correlationId)).body.workflow;
      expect(trace.status).toBe("degraded");
      expect(trace.runList.map((row: { agentId: string }) => row.agentId)).toEqual([songwriter.id, painter.id]);
      expect(trace.agents.map((agent: { name: string }) => agent.name).sort()).toEqual(["Scene Painter", "Songwriter"]);
      const types = trace.messages.map((message: { type: string }) => message.type);
      expect(types).toEqual(expect.arrayContaining(["broadcast.asked", "broadcast.closed", "board.posted", "run.retrying", "run.finished"]));
      expect(types.filter((type: string) => type === "run.retrying")).toHaveLength(3);
      const finishedEvent = trace.messages.find((message: { type: string; agent: string }) => message.type === "run.finished" && message.agent === painter.id);
      expect(finishedEvent.error_details).toMatchObject({ errorType: "provider_error", errorMessage: expect.stringMatching(/HTTP 503/) });

      const listed = await call(listRoute, { url: `/api/rooms/${roomId}/workflows`, method: "GET", params: { roomId } });
      expect(listed.body.workflows).toEqual([expect.objectContaining({ correlationId: run.correlationId, status: "degraded", runs: 2 })]);
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
    const page = (await list("?limit=1")).body.workflows;
    expect(page).toEqual([expect.objectContaining({ correlationId: second.correlationId, status: "active", startedBy: expect.objectContaining({ prompt: "Two" }) })]);
    const next = (await list(`?limit=1&before=${encodeURIComponent(page[0].startedAt)}`)).body.workflows;
    expect(next).toEqual([expect.objectContaining({ correlationId: first.correlationId, status: "failed" })]);
    for (const bad of ["?limit=0", "?limit=500", "?before=later", "?sort=asc"]) expect((await list(bad)).status, bad).toBe(400);
    expect((await workflow(roomId, "no-such-workflow")).status).toBe(404);
    expect((await workflow(roomId, first.correlationId, "?after=-1")).status).toBe(400);
  });

  it("exports a workflow of 10,000 messages as JSON Lines, streamed in bounded memory", async () => {
    const { roomId } = await createTestRoom(context.database.db);
    const storyteller = await agentByPersona(context.database, roomId, "storyteller");
    const run = await startAgentRun(context.database.db, roomId, { agentId: storyteller.id, prompt: "Long" }, alice);
    // The room's counter, moved past the rows inserted below.
    const [{ lastSeq }] = rowsOf<{ lastSeq: number | string }>(
      await context.database.db.execute(sql`update rooms set last_seq = last_seq + 10000 where id = ${roomId} returning last_seq - 10000 as "lastSeq"`),
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
    const response = await exportRoute(jsonRequest(`/api/rooms/${roomId}/workflows/${run.correlationId}/export`, "GET"), params({ roomId, correlationId: run.correlationId }));
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

  it("stores one event for the same write replayed 100 times at once", async () => {
    const { roomId } = await createTestRoom(context.database.db);
    const storyteller = await agentByPersona(context.database, roomId, "storyteller");
    const results = await Promise.all(
      Array.from({ length: 100 }, () =>
        startAgentRun(context.database.db, roomId, { agentId: storyteller.id, prompt: "Once" }, alice, { idempotencyKey: "same-write" }),
      ),
    );
    expect(new Set(results.map((run) => run.id)).size).toBe(1);
    const queued = await context.database.db.select().from(events).where(and(eq(events.roomId, roomId), eq(events.type, "run.queued")));
    expect(queued).toHaveLength(1);
  });
});
