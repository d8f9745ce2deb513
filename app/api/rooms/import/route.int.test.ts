import fs from "node:fs";
import path from "node:path";
import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { agents, rooms } from "@/db/schema";
import { startAgentRun } from "@/lib/agents/start-agent-run";
import { resolveModel } from "@/lib/models/registry";
import { parseRoomSettings } from "@/lib/rooms/room-settings";
import { startTestWorker } from "@/test/agents";
import { startChatServer } from "@/test/chat-server";
import { alice, eventually } from "@/test/fixtures";
import { runs } from "@/db/schema";
import { jsonRequest, useTestRuntime } from "@/test/test-runtime";
import { respondAsShadow } from "@/lib/broadcast/respond-as-shadow";
import { POST } from "./route";

const context = useTestRuntime();

const fixture = (name: string) => fs.readFileSync(path.join(process.cwd(), "lib/rooms/fixtures", name), "utf8");

/** Starts one run of each imported agent on its own model (no server-wide endpoint is set) and waits for them to succeed. */
async function runEachAgentOnce(body: { room: { id: string }; agents: { id: string }[] }) {
  const worker = await startTestWorker(context.database, { resolveModel: (spec, agent) => resolveModel(spec, { agent, scriptPaceMs: 0 }) });
  try {
    for (const agent of body.agents) await startAgentRun(context.database.db, body.room.id, { agentId: agent.id, prompt: "Say hello" }, alice);
    await eventually(async () => {
      const rows = await context.database.db.select().from(runs).where(eq(runs.roomId, body.room.id));
      expect(rows.map((row) => row.status)).toEqual(body.agents.map(() => "succeeded"));
    }, 15_000);
  } finally {
    await worker.stop();
  }
}

describe("POST /api/rooms/import", () => {
  it("creates a room with the file's agents and broadcast settings", async () => {
    const response = await POST(jsonRequest("/api/rooms/import", "POST", { yaml: fixture("broadcast-human.yaml"), title: "Human loop" }));
    expect(response.status).toBe(201);
    const body = await response.json();
    expect(body.ignored).toContain("agents[0].backend.cwd");
    const [room] = await context.database.db.select().from(rooms).where(eq(rooms.id, body.room.id));
    expect(room!.title).toBe("Human loop");
    expect(room!.template).toBe("imported");
    expect(parseRoomSettings(room!.settings)).toMatchObject({ broadcast: "human", broadcast_timeout: 60, max_broadcasts_per_agent: 5 });
    const roster = await context.database.db.select().from(agents).where(eq(agents.roomId, body.room.id));
    expect(roster.map((agent) => agent.model).sort()).toEqual(["google:gemini-3-pro-preview", "openai:gpt-5"]);
  });

  it("answers a malformed file with 400 naming the key and line, and creates nothing", async () => {
    const before = (await context.database.db.select().from(rooms)).length;
    for (const type of ["carrier-pigeon", "constructor", "__proto__"]) {
      const response = await POST(
        jsonRequest("/api/rooms/import", "POST", { yaml: `agents:\n  - id: a\n    backend:\n      type: ${type}\n` }),
      );
      expect(response.status).toBe(400);
      const body = await response.json();
      expect(body.error.message).toContain(`agents[0].backend.type (line 4): unknown backend type "${type}"`);
      expect(body.error.details).toEqual({ key: "agents[0].backend.type", line: 4 });
    }
    expect((await context.database.db.select().from(rooms)).length).toBe(before);

    const wrongShape = await POST(jsonRequest("/api/rooms/import", "POST", { yaml: "x", extra: 1 }));
    expect(wrongShape.status).toBe(400);
    expect((await wrongShape.json()).error.message).toMatch(/unknown field\(s\) extra/);
  });

  it("titles the room with the task's first line that has text", async () => {
    const yaml = "task: |\n\n  \n  Write a lullaby\n  for a lighthouse\nagents:\n  - id: a\n    backend: {type: openai}\n";
    const response = await POST(jsonRequest("/api/rooms/import", "POST", { yaml }));
    expect(response.status).toBe(201);
    const [room] = await context.database.db.select().from(rooms).where(eq(rooms.id, (await response.json()).room.id));
    expect(room!.title).toBe("Write a lullaby");
  });

  it("runs each imported agent at its own endpoint, with the key its file names and its temperature", async () => {
    const local = await startChatServer(() => ({ text: "From the local server." }));
    const hosted = await startChatServer(() => ({ text: "From the hosted service." }));
    process.env.PARLEY_TEST_TEAM_KEY = "key-from-the-environment";
    const yaml = [
      "agents:",
      "  - id: local_coder",
      `    backend: { type: vllm, model: qwen2.5-coder, base_url: '${local.baseURL}', temperature: 0.3 }`,
      "  - id: hosted_writer",
      `    backend: { type: chatcompletion, model: big-model, base_url: '${hosted.baseURL}', api_key_env: PARLEY_TEST_TEAM_KEY, max_tokens: 500 }`,
    ].join("\n");
    const response = await POST(jsonRequest("/api/rooms/import", "POST", { yaml, fileName: "mixed_endpoints-team.yaml" }));
    expect(response.status).toBe(201);
    const body = await response.json();
    expect(body.room.title).toBe("mixed endpoints team");
    expect(body.agents.map((agent: { name: string; model: string; endpoint: string }) => [agent.name, agent.model, agent.endpoint])).toEqual([
      ["local_coder", "openai-compatible:qwen2.5-coder", local.baseURL],
      ["hosted_writer", "openai-compatible:big-model", hosted.baseURL],
    ]);
    // No server-wide endpoint is set: each agent reaches its own.
    try {
      await runEachAgentOnce(body);
    } finally {
      await local.close();
      await hosted.close();
      delete process.env.PARLEY_TEST_TEAM_KEY;
    }
    expect(local.received[0]).toEqual({ url: "/v1/chat/completions", authorization: undefined });
    expect(local.requests[0]).toMatchObject({ model: "qwen2.5-coder", temperature: 0.3 });
    expect(hosted.received[0]).toEqual({ url: "/v1/chat/completions", authorization: "Bearer key-from-the-environment" });
    expect(hosted.requests[0]).toMatchObject({ model: "big-model", max_tokens: 500 });
  });

  it("sends each agent's generation settings on the wire, also a framework agent's from its llm_config, and its shadow's too", async () => {
    const local = await startChatServer(() => ({ text: "From the local server." }));
    const framework = await startChatServer(() => ({ text: "From the framework's model." }));
    const yaml = [
      "task: Build a web scraper for product prices",
      "agents:",
      "  - id: tuned",
      `    backend: { type: vllm, model: qwen2.5-coder, base_url: '${local.baseURL}', temperature: 0.3, top_p: 0.85, top_k: 50, max_tokens: 400,`,
      "               frequency_penalty: 0.4, presence_penalty: -0.2, stop: ['<END>', '###'], seed: 11 }",
      "  - id: assistant",
      "    backend:",
      "      type: ag2",
      "      agent_config:",
      "        llm_config:",
      "          temperature: 0.6",
      `          config_list: [{ api_type: vllm, model: framework-model, base_url: '${framework.baseURL}', max_tokens: 250 }]`,
    ].join("\n");
    const response = await POST(jsonRequest("/api/rooms/import", "POST", { yaml }));
    expect(response.status).toBe(201);
    const body = await response.json();
    expect(body.agents.map((agent: { name: string; model: string; endpoint: string; generation: object }) => [agent.name, agent.model, agent.endpoint, agent.generation])).toEqual([
      [
        "tuned",
        "openai-compatible:qwen2.5-coder",
        local.baseURL,
        { temperature: 0.3, topP: 0.85, maxOutputTokens: 400, frequencyPenalty: 0.4, presencePenalty: -0.2, stopSequences: ["<END>", "###"], seed: 11 },
      ],
      ["assistant", "openai-compatible:framework-model", framework.baseURL, { temperature: 0.6, maxOutputTokens: 250 }],
    ]);
    // OpenAI-compatible chat takes no top_k: the result says so rather than send it nowhere.
    expect(body.ignored).toContain("agents[0].backend.top_k");
    expect(body.notes).toContain("agents[0].backend: openai-compatible models do not take top_k; it is ignored.");

    try {
      await runEachAgentOnce(body);
      // The agent's shadow answers with the same settings.
      const [tuned] = await context.database.db.select().from(agents).where(eq(agents.id, body.agents[0].id));
      await respondAsShadow(
        { db: context.database.db, resolveModel: (spec, agent) => resolveModel(spec, { agent }) },
        { responder: tuned!, askerName: "assistant", question: "Which page first?", depth: "low", signal: new AbortController().signal, seed: 1 },
      );
    } finally {
      await local.close();
      await framework.close();
    }
    const sent = { temperature: 0.3, top_p: 0.85, max_tokens: 400, frequency_penalty: 0.4, presence_penalty: -0.2, stop: ["<END>", "###"], seed: 11 };
    expect(local.requests).toHaveLength(2);
    for (const request of local.requests) {
      expect(request).toMatchObject({ model: "qwen2.5-coder", ...sent });
      expect(request).not.toHaveProperty("top_k");
    }
    expect(framework.received[0]).toEqual({ url: "/v1/chat/completions", authorization: undefined });
    expect(framework.requests[0]).toMatchObject({ model: "framework-model", temperature: 0.6, max_tokens: 250 });
  });
});
