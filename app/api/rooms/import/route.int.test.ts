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
import { POST } from "./route";

const context = useTestRuntime();

const fixture = (name: string) => fs.readFileSync(path.join(process.cwd(), "lib/rooms/fixtures", name), "utf8");

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
    const worker = await startTestWorker(context.database, { resolveModel: (spec, agent) => resolveModel(spec, { agent, scriptPaceMs: 0 }) });
    try {
      for (const agent of body.agents) await startAgentRun(context.database.db, body.room.id, { agentId: agent.id, prompt: "Say hello" }, alice);
      await eventually(async () => {
        const rows = await context.database.db.select().from(runs).where(eq(runs.roomId, body.room.id));
        expect(rows.map((row) => row.status)).toEqual(["succeeded", "succeeded"]);
      }, 15_000);
    } finally {
      await worker.stop();
      await local.close();
      await hosted.close();
      delete process.env.PARLEY_TEST_TEAM_KEY;
    }
    expect(local.received[0]).toEqual({ url: "/v1/chat/completions", authorization: undefined });
    expect(local.requests[0]).toMatchObject({ model: "qwen2.5-coder", temperature: 0.3 });
    expect(hosted.received[0]).toEqual({ url: "/v1/chat/completions", authorization: "Bearer key-from-the-environment" });
    expect(hosted.requests[0]).toMatchObject({ model: "big-model", max_tokens: 500 });
  });
});
