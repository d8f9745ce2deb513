import http from "node:http";
import type { AddressInfo } from "node:net";
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { canvasNodes, runs } from "@/db/schema";
import { startAgentRun } from "@/lib/agents/start-agent-run";
import { getEnv } from "@/lib/env";
import { readEventsAfter } from "@/lib/events/read-events";
import { agentByPersona, startTestWorker } from "@/test/agents";
import { alice, createTestRoom, eventually } from "@/test/fixtures";
import { setAgentModel } from "@/test/mock-models";
import { type TestDatabase, createTestDatabase } from "@/test/test-database";
import { resolveModel } from "./registry";

interface Captured {
  url: string;
  authorization: string | undefined;
  body: {
    model: string;
    stream: boolean;
    stream_options?: { include_usage?: boolean };
    messages: { role: string; content: unknown; tool_call_id?: string; tool_calls?: unknown[] }[];
    tools?: { type: string; function: { name: string; parameters: { type: string; properties: Record<string, unknown> } } }[];
  };
}

type Reply = (request: Captured, index: number) => { status: number; chunks?: unknown[]; body?: string };

/** A local server speaking the Chat Completions protocol, streaming what `reply` says. */
async function chatServer(reply: Reply) {
  const requests: Captured[] = [];
  const server = http.createServer((req, res) => {
    let raw = "";
    req.on("data", (chunk) => (raw += chunk));
    req.on("end", () => {
      const captured: Captured = { url: req.url ?? "", authorization: req.headers.authorization, body: JSON.parse(raw) };
      requests.push(captured);
      const answer = reply(captured, requests.length - 1);
      if (!answer.chunks) {
        res.writeHead(answer.status, { "content-type": "application/json" });
        res.end(answer.body ?? JSON.stringify({ error: { message: "upstream exploded", type: "server_error" } }));
        return;
      }
      res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
      for (const chunk of answer.chunks) res.write(`data: ${JSON.stringify(chunk)}\n\n`);
      res.end("data: [DONE]\n\n");
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  return { requests, baseURL: `http://127.0.0.1:${port}/v1`, close: () => new Promise((resolve) => server.close(resolve)) };
}

const chunk = (delta: Record<string, unknown>, finish: string | null = null) => ({
  id: "chatcmpl-1",
  object: "chat.completion.chunk",
  created: 1_763_800_000,
  model: "test-model",
  choices: [{ index: 0, delta, finish_reason: finish }],
});
const usage = (prompt: number, completion: number) => ({
  id: "chatcmpl-1",
  object: "chat.completion.chunk",
  created: 1_763_800_000,
  model: "test-model",
  choices: [],
  usage: { prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion },
});

const NODE_TEXT = "Harbour lights shiver on the water";

/** First call: some text and a create_node call split over chunks; then a closing sentence. */
const happyPath: Reply = (request) => {
  const answered = request.body.messages.some((message) => message.role === "tool");
  if (!answered) {
    const args = JSON.stringify({ text: NODE_TEXT, kind: "lyric", x: 10, y: 20 });
    return {
      status: 200,
      chunks: [
        chunk({ role: "assistant", content: "Writing " }),
        chunk({ content: "a line." }),
        chunk({
          tool_calls: [{ index: 0, id: "call_abc", type: "function", function: { name: "create_node", arguments: args.slice(0, 12) } }],
        }),
        chunk({ tool_calls: [{ index: 0, function: { arguments: args.slice(12, 30) } }] }),
        chunk({ tool_calls: [{ index: 0, function: { arguments: args.slice(30) } }] }),
        chunk({}, "tool_calls"),
        usage(321, 45),
      ],
    };
  }
  return { status: 200, chunks: [chunk({ role: "assistant", content: "The line is on the canvas." }), chunk({}, "stop"), usage(400, 9)] };
};

let database: TestDatabase;

beforeAll(async () => {
  database = await createTestDatabase();
});
afterAll(async () => {
  await database.destroy();
});

async function runAgainst(server: Awaited<ReturnType<typeof chatServer>>, options: { retryDelaysMs?: number[] } = {}) {
  const { roomId } = await createTestRoom(database.db);
  const songwriter = await agentByPersona(database, roomId, "songwriter");
  await setAgentModel(database, songwriter.id, "openai-compatible:test-model");
  const env = { ...getEnv(), OPENAI_COMPATIBLE_BASE_URL: server.baseURL, OPENAI_COMPATIBLE_API_KEY: "test-key" };
  const worker = await startTestWorker(database, {
    resolveModel: (spec) => resolveModel(spec, { env, scriptPaceMs: 0 }),
    execute: { typingFlushMs: 10, retryDelaysMs: options.retryDelaysMs ?? [] },
    onError: () => {},
  });
  return { roomId, songwriter, worker };
}

describe("an agent on an OpenAI-compatible server (wire level)", () => {
  it("streams text and a tool call in, runs the tool, sends the result back and records usage", async () => {
    const server = await chatServer(happyPath);
    const { roomId, songwriter, worker } = await runAgainst(server);
    try {
      const run = await startAgentRun(database.db, roomId, { agentId: songwriter.id, prompt: "Write one line about the harbour" }, alice);
      await eventually(async () => {
        const [row] = await database.db.select().from(runs).where(eq(runs.id, run.id));
        expect(row!.status).toBe("succeeded");
      }, 15_000);

      expect(server.requests).toHaveLength(2);
      const [first, second] = server.requests as [Captured, Captured];
      expect(first.url).toBe("/v1/chat/completions");
      expect(first.authorization).toBe("Bearer test-key");
      expect(first.body).toMatchObject({ model: "test-model", stream: true, stream_options: { include_usage: true } });
      expect(first.body.messages[0]).toMatchObject({ role: "system" });
      expect(String(first.body.messages[0]!.content)).toMatch(/You are Songwriter/);
      expect(JSON.stringify(first.body.messages[1])).toMatch(/Write one line about the harbour/);
      const toolNames = first.body.tools!.map((tool) => tool.function.name);
      expect(toolNames).toEqual(
        expect.arrayContaining(["create_node", "create_edge", "share_creative_context", "read_shared_context", "request_agent"]),
      );
      const createNode = first.body.tools!.find((tool) => tool.function.name === "create_node")!;
      expect(createNode.function.parameters.type).toBe("object");
      expect(Object.keys(createNode.function.parameters.properties)).toEqual(expect.arrayContaining(["text", "kind", "x", "y"]));

      const assistant = second.body.messages.find((message) => message.role === "assistant")!;
      expect(JSON.stringify(assistant.tool_calls)).toMatch(/call_abc/);
      const toolMessage = second.body.messages.find((message) => message.role === "tool")!;
      expect(toolMessage.tool_call_id).toBe("call_abc");
      expect(String(toolMessage.content)).toMatch(/"ok":true/);

      const nodes = await database.db.select().from(canvasNodes).where(eq(canvasNodes.roomId, roomId));
      expect(nodes.map((node) => [node.text, node.kind, node.x, node.y])).toEqual([[NODE_TEXT, "lyric", 10, 20]]);
      const steps = (await readEventsAfter(database.db, roomId, 0, 500)).filter((event) => event.type === "run.step");
      expect(steps.map((event) => event.payload)).toMatchObject([
        { text: "Writing a line.", inputTokens: 321, outputTokens: 45, toolCalls: [{ id: "call_abc", name: "create_node" }] },
        { text: "The line is on the canvas.", inputTokens: 400, outputTokens: 9 },
      ]);
    } finally {
      await worker.stop();
      await server.close();
    }
  });

  it("fails only its own run when the server keeps failing, after retrying", async () => {
    const server = await chatServer(() => ({ status: 500 }));
    const { roomId, songwriter, worker } = await runAgainst(server, { retryDelaysMs: [5] });
    try {
      // The Scene Painter asks nobody for anything: every request the server sees is the Songwriter's.
      const painter = await agentByPersona(database, roomId, "scene-painter");
      const failing = await startAgentRun(database.db, roomId, { agentId: songwriter.id }, alice);
      const healthy = await startAgentRun(database.db, roomId, { agentId: painter.id }, alice);
      await eventually(async () => {
        const rows = await database.db.select().from(runs).where(eq(runs.roomId, roomId));
        expect(rows.every((row) => row.status === "succeeded" || row.status === "failed")).toBe(true);
      }, 20_000);
      const [bad] = await database.db.select().from(runs).where(eq(runs.id, failing.id));
      expect(bad!.status).toBe("failed");
      expect(bad!.error).toMatchObject({ error_type: "provider_error", retry_possible: true });
      expect(bad!.error).toMatchObject({ error_message: expect.stringMatching(/HTTP 500/) });
      expect(server.requests).toHaveLength(2);
      const [good] = await database.db.select().from(runs).where(eq(runs.id, healthy.id));
      expect(good!.status).toBe("succeeded");
    } finally {
      await worker.stop();
      await server.close();
    }
  });

  it("retries a transient error and succeeds", async () => {
    const server = await chatServer((request, index) => (index === 0 ? { status: 503 } : happyPath(request, index)));
    const { roomId, songwriter, worker } = await runAgainst(server, { retryDelaysMs: [5, 5] });
    try {
      const run = await startAgentRun(database.db, roomId, { agentId: songwriter.id }, alice);
      await eventually(async () => {
        const [row] = await database.db.select().from(runs).where(eq(runs.id, run.id));
        expect(row!.status).toBe("succeeded");
      }, 20_000);
      expect(server.requests).toHaveLength(3);
    } finally {
      await worker.stop();
      await server.close();
    }
  });
});
