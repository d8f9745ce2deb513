import path from "node:path";
import { and, asc, eq } from "drizzle-orm";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { agents, events, runs } from "@/db/schema";
import { startAgentRun } from "@/lib/agents/start-agent-run";
import { resolveModel } from "@/lib/models/registry";
import type { PayloadOf } from "@/lib/protocol";
import { getRoomSnapshot } from "@/lib/rooms/get-room-snapshot";
import { describeEvent } from "@/components/feed/describe-event";
import { agentToDto } from "@/lib/rooms/dto";
import { startTestWorker } from "@/test/agents";
import { type ChatReply, type ChatRequest, startChatServer } from "@/test/chat-server";
import { alice, eventually } from "@/test/fixtures";
import { startHttpMcpServer } from "@/test/mcp/http-mcp-server";
import { useOfflineServer } from "@/test/offline-server";
import { jsonRequest, useTestRuntime } from "@/test/test-runtime";
import { call, cookieFrom } from "@/test/http";
import { POST as startRun } from "../[roomId]/runs/route";
import { POST as takeSeat } from "../[roomId]/seat/route";
import { POST } from "./route";

const context = useTestRuntime();
useOfflineServer();

const ADMIN_TOKEN = "admin-token-for-team-tool-tests";
const STDIO_SERVER = path.join(process.cwd(), "test/mcp/stdio-server.mjs");

async function importTeam(yaml: string, headers: Record<string, string> = {}) {
  const response = await POST(jsonRequest("/api/rooms/import", "POST", { yaml, offline: false }, headers));
  return { status: response.status, body: await response.json() };
}

/** The stand-in model: calls `tool` with `input` first, then says what the tool answered (or how it failed). */
function callsOnce(tool: string, input: Record<string, unknown>) {
  return (request: ChatRequest): ChatReply => {
    const answered = request.messages.find((message) => message.role === "tool");
    if (!answered) return { toolCall: { name: tool, arguments: input } };
    return { text: `The tool said: ${JSON.stringify(answered.content)}` };
  };
}

/** Runs the room's first agent once on its own model and endpoint; the run's steps once it has ended. */
async function runOnce(roomId: string, agentId: string, execute: { modelCallTimeoutMs?: number } = {}) {
  const worker = await startTestWorker(context.database, {
    resolveModel: (spec, agent) => resolveModel(spec, { agent, scriptPaceMs: 0 }),
    execute: { typingFlushMs: 10, retryDelaysMs: [], ...execute },
  });
  try {
    await startAgentRun(context.database.db, roomId, { agentId, prompt: "Price a kettle" }, alice);
    const run = await eventually(async () => {
      const [row] = await context.database.db.select().from(runs).where(eq(runs.roomId, roomId));
      expect(row?.status).toMatch(/succeeded|failed/);
      return row!;
    }, 30_000);
    const steps = await context.database.db
      .select()
      .from(events)
      .where(and(eq(events.roomId, roomId), eq(events.type, "run.step")))
      .orderBy(asc(events.seq));
    return { run, steps: steps.map((row) => row.payload as PayloadOf<"run.step">), rows: steps };
  } finally {
    await worker.stop();
  }
}

function teamWithServer(chatBaseUrl: string, server: string): string {
  return [
    "agents:",
    "  - id: shopper",
    "    backend:",
    "      type: chatcompletion",
    "      model: stand-in",
    `      base_url: ${chatBaseUrl}`,
    "      mcp_servers:",
    server,
    "task: Price a kettle",
  ].join("\n");
}

describe("an imported agent's MCP servers", () => {
  let shop: Awaited<ReturnType<typeof startHttpMcpServer>>;
  beforeEach(async () => {
    shop = await startHttpMcpServer();
  });
  afterEach(async () => {
    await shop.close();
  });

  it("become its tools: listed on the result, called through the model, the result in the run's steps and the feed", async () => {
    const model = await startChatServer(callsOnce("mcp__shop__lookup_price", { item: "kettle" }));
    try {
      vi.stubEnv("PARLEY_IMPORT_ENDPOINTS", `${model.baseURL},${shop.url}`);
      const { status, body } = await importTeam(
        teamWithServer(
          model.baseURL,
          `        - name: shop\n          type: streamable-http\n          url: ${shop.url}\n          security: {level: permissive}`,
        ),
      );
      expect(status).toBe(201);
      expect(body.agents[0].tools).toEqual([
        {
          server: "shop",
          transport: "streamable-http",
          connected: true,
          tools: ["mcp__shop__lookup_price", "mcp__shop__explode", "mcp__shop__hang"],
          reason: null,
        },
      ]);
      expect(body.ignored).toContain("agents[0].backend.mcp_servers[0].security");

      const { run, steps, rows } = await runOnce(body.room.id, body.agents[0].id);
      expect(run.status).toBe("succeeded");
      // The model was offered the server's tools beside Parley's own.
      const offered = model.requests[0]!.tools!.map((tool) => tool.function.name);
      expect(offered).toEqual(expect.arrayContaining(["mcp__shop__lookup_price", "create_node"]));
      expect(shop.calls).toEqual([{ tool: "lookup_price", item: "kettle" }]);
      expect(steps[0]!.toolCalls).toEqual([expect.objectContaining({ name: "mcp__shop__lookup_price", input: { item: "kettle" } })]);
      expect(steps[0]!.toolResults).toEqual([
        expect.objectContaining({ name: "mcp__shop__lookup_price", output: "kettle costs 24 euros" }),
      ]);
      expect(steps[1]!.text).toMatch(/kettle costs 24 euros/);
      const [agent] = await context.database.db.select().from(agents).where(eq(agents.roomId, body.room.id));
      const line = describeEvent(
        {
          ...rows[0]!,
          room_id: rows[0]!.roomId,
          payload: steps[0]!,
        } as unknown as Parameters<typeof describeEvent>[0],
        { agents: [agentToDto(agent!)], nodeText: () => undefined },
      );
      expect(line.chips).toEqual(["shop: lookup_price"]);
    } finally {
      await model.close();
    }
  });

  it("reaches a server over the older HTTP+SSE transport too", async () => {
    const model = await startChatServer(callsOnce("mcp__old_shop__lookup_price", { item: "toaster" }));
    try {
      vi.stubEnv("PARLEY_IMPORT_ENDPOINTS", `${model.baseURL},${shop.sseUrl}`);
      const { body } = await importTeam(
        teamWithServer(model.baseURL, `        old_shop:\n          type: sse\n          url: ${shop.sseUrl}`),
      );
      expect(body.agents[0].tools).toEqual([expect.objectContaining({ server: "old_shop", transport: "sse", connected: true })]);
      const { run, steps } = await runOnce(body.room.id, body.agents[0].id);
      expect(run.status).toBe("succeeded");
      expect(steps[0]!.toolResults).toEqual([expect.objectContaining({ output: "toaster costs 24 euros" })]);
    } finally {
      await model.close();
    }
  });

  it("hands a failing tool's error and a hanging tool's time-out to the model as tool errors, and the run goes on", async () => {
    const model = await startChatServer((request, index) => {
      const results = request.messages.filter((message) => message.role === "tool").length;
      if (results === 0) return { toolCall: { name: "mcp__shop__explode", arguments: { reason: "no coins" } } };
      if (results === 1) return { toolCall: { name: "mcp__shop__hang", arguments: {} } };
      return { text: `Carrying on after ${index} calls.` };
    });
    try {
      vi.stubEnv("PARLEY_IMPORT_ENDPOINTS", `${model.baseURL},${shop.url}`);
      const { body } = await importTeam(teamWithServer(model.baseURL, `        - name: shop\n          url: ${shop.url}`));
      const { run, steps } = await runOnce(body.room.id, body.agents[0].id, { modelCallTimeoutMs: 4000 });
      expect(run.status).toBe("succeeded");
      expect(steps[0]!.toolResults).toEqual([
        expect.objectContaining({
          name: "mcp__shop__explode",
          error: expect.stringMatching(/shop MCP server: explode failed: the shop's till exploded: no coins/),
        }),
      ]);
      expect(steps[1]!.toolResults).toEqual([
        expect.objectContaining({ name: "mcp__shop__hang", error: expect.stringMatching(/shop MCP server: hang failed: .*timed out/i) }),
      ]);
      // The model read both errors and answered after them.
      expect(JSON.stringify(model.requests[2]!.messages)).toMatch(/till exploded/);
      expect(steps[2]!.text).toMatch(/Carrying on/);
      expect(shop.calls.map((call) => call.tool)).toEqual(["explode", "hang"]);
    } finally {
      await model.close();
    }
  });

  it("counts its calls in the repeated-call guard like any other tool", async () => {
    const model = await startChatServer(() => ({ toolCall: { name: "mcp__shop__lookup_price", arguments: { item: "kettle" } } }));
    try {
      vi.stubEnv("PARLEY_IMPORT_ENDPOINTS", `${model.baseURL},${shop.url}`);
      const { body } = await importTeam(teamWithServer(model.baseURL, `        - name: shop\n          url: ${shop.url}`));
      const { run } = await runOnce(body.room.id, body.agents[0].id);
      expect(run.status).toBe("failed");
      expect(run.error).toMatchObject({ error_message: expect.stringMatching(/called mcp__shop__lookup_price with the same arguments/) });
      // The call that reached the limit was not made.
      expect(shop.calls.length).toBeLessThan(model.requests.length);
    } finally {
      await model.close();
    }
  });

  it("lists a server on an address the server does not allow as not connected, with why, and never reaches it", async () => {
    const model = await startChatServer(() => ({ text: "Nothing to call." }));
    try {
      vi.stubEnv("PARLEY_IMPORT_ENDPOINTS", model.baseURL);
      const { status, body } = await importTeam(teamWithServer(model.baseURL, `        - name: shop\n          url: ${shop.url}`));
      expect(status).toBe(201);
      expect(body.agents[0].tools).toEqual([
        expect.objectContaining({
          server: "shop",
          connected: false,
          tools: [],
          reason: expect.stringMatching(/private address; list it in PARLEY_IMPORT_ENDPOINTS/),
        }),
      ]);
      const { run } = await runOnce(body.room.id, body.agents[0].id);
      expect(run.status).toBe("succeeded");
      expect(model.requests[0]!.tools!.map((tool) => tool.function.name).filter((name) => name.startsWith("mcp__"))).toEqual([]);
      expect(shop.calls).toEqual([]);
    } finally {
      await model.close();
    }
  });

  it("refuses a header variable the server does not allow, naming the key and line, and creates nothing", async () => {
    vi.stubEnv("PARLEY_IMPORT_ENDPOINTS", shop.url);
    const { status, body } = await importTeam(
      teamWithServer(
        "http://127.0.0.1:9/v1",
        `        - name: shop\n          url: ${shop.url}\n          headers:\n            Authorization: "Bearer \${DATABASE_URL}"`,
      ),
    );
    expect(status).toBe(400);
    expect(body.error.message).toBe(
      "agents[0].backend.mcp_servers[0].headers.Authorization (line 11): DATABASE_URL is not a variable this server lets imported teams read; list it in PARLEY_IMPORT_KEY_VARIABLES on the server to allow it.",
    );
  });
});

describe("an imported agent's MCP server started as a local command", () => {
  const server = `        - name: shop\n          type: stdio\n          command: ${process.execPath}\n          args: ["${STDIO_SERVER}"]`;

  it("never runs from a non-admin's file, nor from an admin's unless the command is listed", async () => {
    const model = await startChatServer(() => ({ text: "Nothing to call." }));
    try {
      vi.stubEnv("PARLEY_IMPORT_ENDPOINTS", model.baseURL);
      vi.stubEnv("PARLEY_MCP_COMMANDS", `${process.execPath} ${STDIO_SERVER}`);
      const anyone = await importTeam(teamWithServer(model.baseURL, server));
      expect(anyone.status).toBe(201);
      expect(anyone.body.agents[0].tools).toEqual([
        expect.objectContaining({
          server: "shop",
          transport: "stdio",
          connected: false,
          reason: expect.stringMatching(/only a team imported by an admin/),
        }),
      ]);
      vi.stubEnv("ADMIN_TOKEN", ADMIN_TOKEN);
      vi.stubEnv("PARLEY_MCP_COMMANDS", "");
      const unlisted = await importTeam(teamWithServer(model.baseURL, server), { authorization: `Bearer ${ADMIN_TOKEN}` });
      expect(unlisted.body.agents[0].tools).toEqual([
        expect.objectContaining({ connected: false, reason: expect.stringMatching(/is not listed in PARLEY_MCP_COMMANDS/) }),
      ]);
    } finally {
      await model.close();
    }
  });

  it("runs for an admin's import of a listed command: its tool is called through the model", async () => {
    const model = await startChatServer(callsOnce("mcp__shop__lookup_price", { item: "teapot" }));
    try {
      vi.stubEnv("ADMIN_TOKEN", ADMIN_TOKEN);
      vi.stubEnv("PARLEY_IMPORT_ENDPOINTS", model.baseURL);
      vi.stubEnv("PARLEY_MCP_COMMANDS", `${process.execPath} ${STDIO_SERVER}`);
      const { body } = await importTeam(teamWithServer(model.baseURL, server), { authorization: `Bearer ${ADMIN_TOKEN}` });
      expect(body.agents[0].tools).toEqual([
        expect.objectContaining({
          server: "shop",
          transport: "stdio",
          connected: true,
          tools: expect.arrayContaining(["mcp__shop__lookup_price"]),
        }),
      ]);
      const { run, steps } = await runOnce(body.room.id, body.agents[0].id);
      expect(run.status).toBe("succeeded");
      expect(steps[0]!.toolResults).toEqual([expect.objectContaining({ output: "teapot costs 24 euros" })]);
    } finally {
      await model.close();
    }
  });
  it("hands a server that went away to the model as tool errors, and the run goes on", async () => {
    const model = await startChatServer((request) => {
      const results = request.messages.filter((message) => message.role === "tool").length;
      if (results === 0) return { toolCall: { name: "mcp__shop__crash", arguments: {} } };
      if (results === 1) return { toolCall: { name: "mcp__shop__lookup_price", arguments: { item: "kettle" } } };
      return { text: "The shop is gone." };
    });
    try {
      vi.stubEnv("ADMIN_TOKEN", ADMIN_TOKEN);
      vi.stubEnv("PARLEY_IMPORT_ENDPOINTS", model.baseURL);
      vi.stubEnv("PARLEY_MCP_COMMANDS", `${process.execPath} ${STDIO_SERVER}`);
      const { body } = await importTeam(teamWithServer(model.baseURL, server), { authorization: `Bearer ${ADMIN_TOKEN}` });
      const { run, steps } = await runOnce(body.room.id, body.agents[0].id);
      expect(run.status).toBe("succeeded");
      expect(steps[0]!.toolResults).toEqual([
        expect.objectContaining({
          name: "mcp__shop__crash",
          error: expect.stringMatching(/^shop MCP server: crash failed: .*connection closed/i),
        }),
      ]);
      expect(steps[1]!.toolResults).toEqual([
        expect.objectContaining({
          name: "mcp__shop__lookup_price",
          error: expect.stringMatching(/^shop MCP server: lookup_price failed: /),
        }),
      ]);
      expect(steps[2]!.text).toBe("The shop is gone.");
    } finally {
      await model.close();
    }
  });
});

describe("an agent calling a known hosted service by its endpoint", () => {
  it("uses that service's key variable, and without it cannot run: its card says why and a start is a 409", async () => {
    const yaml = [
      "agents:",
      "  - id: fast",
      "    backend: {type: chatcompletion, model: llama-3.3-70b, base_url: 'https://api.cerebras.ai/v1'}",
      "  - id: router",
      "    backend: {type: chatcompletion, model: some/model, base_url: 'https://openrouter.ai/api/v1'}",
      "  - id: studio",
      "    backend: {type: openai, model: meta-llama, base_url: 'https://api.studio.nebius.ai/v1/'}",
    ].join("\n");
    const { status, body } = await importTeam(yaml);
    expect(status).toBe(201);
    expect(body.agents.map((agent: { key: unknown }) => agent.key)).toEqual([
      { variable: "CEREBRAS_API_KEY", server: false },
      { variable: "OPENROUTER_API_KEY", server: false },
      { variable: "NEBIUS_API_KEY", server: false },
    ]);
    const snapshot = await getRoomSnapshot(context.database.db, body.room.id);
    expect(snapshot!.agents.map((agent) => agent.unavailableReason)).toEqual([
      "CEREBRAS_API_KEY is not set on the server: this agent calls Cerebras (https://api.cerebras.ai/v1), which needs its key.",
      "OPENROUTER_API_KEY is not set on the server: this agent calls OpenRouter (https://openrouter.ai/api/v1), which needs its key.",
      "NEBIUS_API_KEY is not set on the server: this agent calls Nebius AI Studio (https://api.studio.nebius.ai/v1), which needs its key.",
    ]);
    const seat = await call(takeSeat, { url: "/x", method: "POST", params: { roomId: body.room.id }, body: { displayName: "Ada" } });
    const started = await call(startRun, {
      url: "/x",
      method: "POST",
      params: { roomId: body.room.id },
      body: { agentId: body.agents[0].id },
      cookie: cookieFrom(seat.headers.get("set-cookie")),
    });
    expect(started.status).toBe(409);
    expect(started.body.error.message).toBe(
      "fast cannot run on this server: CEREBRAS_API_KEY is not set on the server: this agent calls Cerebras (https://api.cerebras.ai/v1), which needs its key.",
    );
    expect(await context.database.db.select().from(runs).where(eq(runs.roomId, body.room.id))).toEqual([]);
    // Once the key is set, the agent can run.
    vi.stubEnv("CEREBRAS_API_KEY", "csk-test");
    expect((await getRoomSnapshot(context.database.db, body.room.id))!.agents[0]!.unavailableReason).toBeNull();
  });
});

describe("an endpoint written as ${VARIABLE}", () => {
  it("is read from a variable the server allows, and shown by its name, never its value", async () => {
    const model = await startChatServer(() => ({ text: "Hello from the variable's endpoint." }));
    try {
      vi.stubEnv("PARLEY_ROOM_CREATION", "anyone");
      vi.stubEnv("PARLEY_IMPORT_KEY_VARIABLES", "TEAM_GPT4O_BASE_URL");
      vi.stubEnv("TEAM_GPT4O_BASE_URL", model.baseURL);
      vi.stubEnv("PARLEY_IMPORT_ENDPOINTS", model.baseURL);
      const yaml =
        "agents:\n  - id: azure\n    backend:\n      type: chatcompletion\n      model: gpt-4o\n      base_url: ${TEAM_GPT4O_BASE_URL}\n";
      const { status, body } = await importTeam(yaml);
      expect(status).toBe(201);
      expect(body.agents[0].endpoint).toBe("${TEAM_GPT4O_BASE_URL}");
      expect(JSON.stringify(body)).not.toContain(model.baseURL);
      const { run, steps } = await runOnce(body.room.id, body.agents[0].id);
      expect(run.status).toBe("succeeded");
      expect(steps[0]!.text).toBe("Hello from the variable's endpoint.");
      expect(model.received[0]!.url).toBe("/v1/chat/completions");
    } finally {
      await model.close();
    }
  });

  it("is refused, naming the key and line, when the variable is not allowed or not set, without quoting its value", async () => {
    vi.stubEnv("PARLEY_ROOM_CREATION", "anyone");
    vi.stubEnv("TEAM_SECRET", "sk-not-an-address");
    const before = (await context.database.db.select().from(agents)).length;
    const yaml = "agents:\n  - id: azure\n    backend:\n      type: chatcompletion\n      model: gpt-4o\n      base_url: ${TEAM_SECRET}\n";
    const refused = await importTeam(yaml);
    expect(refused.status).toBe(400);
    expect(refused.body.error.message).toBe(
      "agents[0].backend.base_url (line 6): TEAM_SECRET is not a variable this server lets imported teams read; list it in PARLEY_IMPORT_KEY_VARIABLES on the server to allow it.",
    );
    vi.stubEnv("PARLEY_IMPORT_KEY_VARIABLES", "TEAM_SECRET,TEAM_UNSET");
    const notAnAddress = await importTeam(yaml);
    expect(notAnAddress.status).toBe(400);
    expect(notAnAddress.body.error.message).toMatch(/TEAM_SECRET on the server does not hold an endpoint/);
    expect(JSON.stringify(notAnAddress.body)).not.toContain("sk-not-an-address");
    const unset = await importTeam(yaml.replace("TEAM_SECRET", "TEAM_UNSET"));
    expect(unset.body.error.message).toMatch(/^agents\[0\]\.backend\.base_url \(line 6\): TEAM_UNSET is not set on the server/);
    expect(await context.database.db.select().from(agents)).toHaveLength(before);
  });
});

describe("a file in the older format", () => {
  const older = [
    "orchestrator:",
    "  max_duration: 600",
    "  consensus_threshold: 0.0",
    "agents:",
    "  - agent_id: 1",
    "    agent_type: openai",
    "    model_config:",
    "      model: gpt-4o-mini",
    "      tools: [live_search, code_execution]",
    "      temperature: 0.3",
    "      max_retries: 10",
    "  - agent_id: 2",
    "    agent_type: gemini",
    "    system_message: You check every claim.",
    "    model_config:",
    "      model: gemini-2.5-flash",
    "      top_p: 0.9",
    "task:",
    "  category: general",
    "  complexity: medium",
  ].join("\n");

  it("is imported with its agents, models, settings and system messages, and said to be in the older format", async () => {
    const { status, body } = await importTeam(older);
    expect(status).toBe(201);
    expect(body.agents.map((agent: { name: string; model: string }) => [agent.name, agent.model])).toEqual([
      ["agent_1", "openai:gpt-4o-mini"],
      ["agent_2", "google:gemini-2.5-flash"],
    ]);
    expect(body.agents.map((agent: { generation: unknown }) => agent.generation)).toEqual([{ temperature: 0.3 }, { topP: 0.9 }]);
    const [, checker] = await context.database.db
      .select()
      .from(agents)
      .where(eq(agents.roomId, body.room.id))
      .orderBy(asc(agents.position));
    expect(checker!.systemPrompt).toBe("You check every claim.");
    expect(body.notes.join(" ")).toMatch(/in the older format \(agent_id, agent_type, model_config\)/);
    expect(body.ignored).toEqual(
      expect.arrayContaining(["agents[0].model_config.tools", "agents[0].model_config.max_retries", "task", "orchestrator.max_duration"]),
    );
  });

  it("is refused with a message naming the format and what to change when an agent cannot be read", async () => {
    const before = (await context.database.db.select().from(agents)).length;
    const { status, body } = await importTeam(older.replace("agent_type: gemini", "agent_type: palm"));
    expect(status).toBe(400);
    expect(body.error.message).toMatch(/^agents\[1\]\.agent_type \(line 13\): unknown backend type "palm"/);
    expect(body.error.message).toMatch(/In the current format each agent has an `id` and a `backend` with `type` and `model`/);
    expect(await context.database.db.select().from(agents)).toHaveLength(before);
  });
});
