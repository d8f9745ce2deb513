import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { type Env, getEnv } from "@/lib/env";
import { ConfigImportError, type ImportOptions, parseRoomConfig as parseWith } from "./import-config";

const fixture = (name: string) => fs.readFileSync(path.join(__dirname, "fixtures", name), "utf8");

/** A server that lists no key variables and no endpoints (the default). */
const bare: Env = getEnv({} as NodeJS.ProcessEnv);
/** A server that lists the local endpoints and key variables these files name. */
const listing: Env = getEnv({
  NODE_ENV: "test",
  PARLEY_IMPORT_ENDPOINTS: "http://localhost:11434/v1, http://localhost:8000/v1, http://10.0.0.5:8000/v1",
  PARLEY_IMPORT_KEY_VARIABLES: "MY_CEREBRAS_KEY,LOCAL_KEY",
} as NodeJS.ProcessEnv);

/** Reads a file as an anonymous import on `bare` unless told otherwise. */
const parseRoomConfig = (text: string, options: ImportOptions = {}) => parseWith(text, { env: bare, ...options });

function failure(text: string, options: ImportOptions = {}): ConfigImportError {
  try {
    parseRoomConfig(text, options);
  } catch (error) {
    if (error instanceof ConfigImportError) return error;
    throw error;
  }
  throw new Error("expected the import to fail");
}

describe("parseRoomConfig", () => {
  it("imports the agent-to-agent example with its broadcast settings and lists what it ignores", () => {
    const config = parseRoomConfig(fixture("broadcast-agents.yaml"));
    expect(config.agents.map((agent) => [agent.name, agent.model])).toEqual([
      ["agent_a", "openai:gpt-5"],
      ["agent_b", "google:gemini-3-pro-preview"],
    ]);
    expect(config.agents.map((agent) => agent.persona)).toEqual(["agent-a", "agent-b"]);
    expect(config.settings).toEqual({
      broadcast: "agents",
      broadcast_sensitivity: "high",
      response_depth: "medium",
      broadcast_timeout: 300,
      max_broadcasts_per_agent: 10,
    });
    expect(config.ignored).toEqual([
      "agents[0].backend.cwd",
      "agents[0].backend.enable_mcp_command_line",
      "agents[0].backend.command_line_execution_mode",
      "agents[1].backend.cwd",
      "agents[1].backend.enable_mcp_command_line",
      "agents[1].backend.command_line_execution_mode",
      "orchestrator.snapshot_storage",
      "orchestrator.agent_temporary_workspace",
    ]);
  });

  it("imports the human-in-the-loop example", () => {
    const config = parseRoomConfig(fixture("broadcast-human.yaml"));
    expect(config.settings).toMatchObject({ broadcast: "human", broadcast_timeout: 60, max_broadcasts_per_agent: 5 });
  });

  it("imports a real-world team file as it is: backends mapped, defaults filled, extras ignored", () => {
    const config = parseRoomConfig(fixture("real-world-team.yaml"), { env: listing });
    expect(config.agents.map((agent) => agent.model)).toEqual([
      "google:gemini-2.5-flash",
      "openai:gpt-5-nano",
      "openai-compatible:qwen2.5-coder",
      "anthropic:claude-sonnet-4-5",
    ]);
    expect(config.agents[0]!.systemPrompt).toBe("You are a careful researcher. Cite what you find.");
    expect(config.agents[3]!.systemPrompt).toBe("Keep changes small.");
    expect(config.settings).toEqual({ broadcast: "off", task: "Plan a weekend trip to the coast and write a packing list." });
    expect(config.task).toMatch(/weekend trip/);
    expect(config.notes).toContain("agents[3].backend.model was not set; using claude-sonnet-4-5.");
    // The local model keeps its own endpoint and temperature.
    expect(config.agents[2]!.modelOptions).toEqual({ baseUrl: "http://localhost:11434/v1", temperature: 0.2 });
    expect(config.ignored).not.toContain("agents[2].backend.base_url");
    // Its MCP server is kept as the agent's tool (a command, so it runs only when an admin lists it).
    expect(config.agents[1]!.modelOptions!.mcpServers).toEqual([
      { name: "weather", transport: "stdio", command: "npx", args: ["-y", "@example/weather-mcp"], importedByAdmin: false },
    ]);
    expect(config.ignored).not.toContain("agents[1].backend.mcp_servers");
    expect(config.ignored).toEqual(
      expect.arrayContaining([
        "agents[1].backend.reasoning",
        "agents[3].backend.permission_mode",
        "orchestrator.context_paths",
        "orchestrator.coordination.enable_planning_mode",
        "timeout_settings",
        "ui",
      ]),
    );
  });

  it("runs a framework agent on the model its llm_config names", () => {
    const config = parseRoomConfig(fixture("framework-single-agent.yaml"));
    expect(config.agents).toHaveLength(1);
    expect(config.agents[0]).toMatchObject({
      name: "ag2_assistant",
      model: "anthropic:claude-sonnet-4-20250514",
      systemPrompt: "You are a helpful assistant.",
    });
    expect(config.notes.join(" ")).toMatch(/runs as one agent on anthropic:claude-sonnet-4-20250514/);
  });

  it("puts every agent on the offline model when asked to", () => {
    const config = parseRoomConfig(fixture("broadcast-agents.yaml"), { offline: true });
    expect(config.agents.map((agent) => agent.model)).toEqual(["script:agent-a", "script:agent-b"]);
  });

  it("names the line of a YAML syntax error", () => {
    const error = failure("agents:\n  - id: a\n    backend: {type: openai\n  - id: b\n");
    expect(error.status).toBe(400);
    expect(error.message).toMatch(/^The file is not valid YAML \(line \d+\)/);
    expect(error.line).toBeGreaterThan(1);
  });

  it("names the key and line of an unknown backend type", () => {
    const error = failure(
      "agents:\n  - id: a\n    backend:\n      type: openai\n  - id: b\n    backend:\n      type: telepathy\n      model: x\n",
    );
    expect(error.key).toBe("agents[1].backend.type");
    expect(error.line).toBe(7);
    expect(error.message).toMatch(/^agents\[1\]\.backend\.type \(line 7\): unknown backend type "telepathy"/);
  });

  it("takes no names from Object.prototype for backend types or a framework's api_type", () => {
    for (const type of ["constructor", "__proto__", "toString"]) {
      const error = failure(`agents:\n  - id: a\n    backend:\n      type: ${type}\n      model: x\n`);
      expect(error.key).toBe("agents[0].backend.type");
      expect(error.line).toBe(4);
      expect(error.message).toMatch(new RegExp(`unknown backend type "${type}"`));
    }
    const framework = parseRoomConfig(
      "agents:\n  - id: a\n    backend:\n      type: ag2\n      agent_config:\n        llm_config: {api_type: constructor, model: m}\n",
    );
    expect(framework.agents[0]!.model).toBe("openai-compatible:m");
  });

  it("names the key and line of a bad broadcast setting", () => {
    const bad = (coordination: string) =>
      failure(`agents:\n  - id: a\n    backend:\n      type: openai\norchestrator:\n  coordination:\n${coordination}`);
    const mode = bad('    broadcast: "everyone"\n');
    expect(mode.message).toBe('orchestrator.coordination.broadcast (line 7): must be false, "agents" or "human", not "everyone"');
    const timeout = bad("    broadcast_timeout: -5\n");
    expect(timeout.key).toBe("orchestrator.coordination.broadcast_timeout");
    expect(timeout.message).toMatch(/whole number from 1 to 3600/);
    const depth = bad("    response_depth: extreme\n");
    expect(depth.message).toMatch(/response_depth \(line 7\): must be one of "low", "medium", "high"/);
  });

  it("refuses files without agents, agents without a backend type, and duplicate ids", () => {
    expect(failure("task: hello\n").message).toBe("agents (line 1): is required: list the agents to import");
    expect(failure("agents: {}\n").message).toMatch(/^agents \(line 1\): must be a list of agents/);
    expect(failure("agents:\n  - id: a\n    backend:\n      model: gpt-5\n").key).toBe("agents[0].backend.type");
    expect(failure("agents:\n  - id: a\n    backend: {type: openai}\n  - id: a\n    backend: {type: openai}\n").message).toMatch(
      /agents\[1\]\.id \(line 4\): "a" is used by another agent/,
    );
    expect(failure("- just\n- a list\n").message).toMatch(/must be a mapping/);
  });

  it("refuses a file whose aliases would expand without bound, an overlong id and a framework model that is not text", () => {
    const anchors = ["a0: &a0 [x, x, x, x, x, x, x, x, x, x]"];
    for (let level = 1; level < 12; level++) {
      anchors.push(`a${level}: &a${level} [${Array.from({ length: 10 }, () => `*a${level - 1}`).join(", ")}]`);
    }
    const bomb = `${anchors.join("\n")}\nagents:\n  - id: a\n    backend: {type: ag2, agent_config: {llm_config: {model: m}, extra: *a11}}\n`;
    const expanded = failure(bomb);
    expect(expanded.status).toBe(400);
    expect(expanded.message).toMatch(/^The file could not be read: /);

    const long = failure(`agents:\n  - id: ${"a".repeat(81)}\n    backend: {type: openai}\n`);
    expect(long.message).toBe("agents[0].id (line 2): is limited to 80 characters");

    const objectModel = failure("agents:\n  - id: a\n    backend: {type: ag2, agent_config: {llm_config: {model: {name: m}}}}\n");
    expect(objectModel.key).toBe("agents[0].backend.type");
  });

  it("keeps each agent's endpoint, key variable and generation settings", () => {
    const config = parseRoomConfig(
      [
        "agents:",
        "  - id: local",
        "    backend: { type: vllm, model: qwen2.5-coder, base_url: 'http://10.0.0.5:8000/v1/', temperature: 0.2, top_p: 0.9, max_tokens: 800 }",
        "  - id: grok",
        "    backend: { type: grok, model: grok-4 }",
        "  - id: cerebras",
        "    backend: { type: cerebras, model: llama-3.3-70b, api_key: '${MY_CEREBRAS_KEY}' }",
        "  - id: pasted",
        "    backend: { type: openai, model: gpt-5, api_key: sk-pasted-into-the-file }",
      ].join("\n"),
      { env: listing },
    );
    expect(config.agents.map((agent) => [agent.model, agent.modelOptions])).toEqual([
      ["openai-compatible:qwen2.5-coder", { baseUrl: "http://10.0.0.5:8000/v1", temperature: 0.2, topP: 0.9, maxOutputTokens: 800 }],
      ["openai-compatible:grok-4", { baseUrl: "https://api.x.ai/v1", apiKeyEnv: "XAI_API_KEY" }],
      ["openai-compatible:llama-3.3-70b", { baseUrl: "https://api.cerebras.ai/v1", apiKeyEnv: "MY_CEREBRAS_KEY" }],
      ["openai:gpt-5", {}],
    ]);
    expect(config.notes).toContain(
      "agents[3].backend.api_key: a key written in the file is not used; name the environment variable that holds it with api_key_env.",
    );
    expect(JSON.stringify(config)).not.toContain("sk-pasted-into-the-file");
    expect(config.ignored).toEqual([]);
  });

  it("maps every generation setting the AI SDK takes, and lists those an agent's provider does not", () => {
    const settings =
      "temperature: 0.4, top_p: 0.8, top_k: 40, max_tokens: 900, frequency_penalty: 0.5, presence_penalty: -0.25, stop: ['END', '###'], seed: 7";
    const config = parseRoomConfig(
      [
        "agents:",
        `  - id: local\n    backend: { type: vllm, model: qwen, base_url: 'http://10.0.0.5:8000/v1', ${settings} }`,
        `  - id: claude\n    backend: { type: claude, model: claude-sonnet-4-5, ${settings} }`,
        `  - id: gpt\n    backend: { type: openai, model: gpt-5, ${settings} }`,
        "  - id: gemini\n    backend: { type: gemini, model: gemini-2.5-flash, stop: END, seed: 3 }",
      ].join("\n"),
      { env: listing },
    );
    expect(config.agents.map((agent) => agent.modelOptions)).toEqual([
      {
        baseUrl: "http://10.0.0.5:8000/v1",
        temperature: 0.4,
        topP: 0.8,
        maxOutputTokens: 900,
        frequencyPenalty: 0.5,
        presencePenalty: -0.25,
        stopSequences: ["END", "###"],
        seed: 7,
      },
      { temperature: 0.4, topP: 0.8, topK: 40, maxOutputTokens: 900, stopSequences: ["END", "###"] },
      { temperature: 0.4, topP: 0.8, maxOutputTokens: 900 },
      { stopSequences: ["END"], seed: 3 },
    ]);
    expect(config.ignored).toEqual([
      "agents[0].backend.top_k",
      "agents[1].backend.frequency_penalty",
      "agents[1].backend.presence_penalty",
      "agents[1].backend.seed",
      "agents[2].backend.top_k",
      "agents[2].backend.frequency_penalty",
      "agents[2].backend.presence_penalty",
      "agents[2].backend.stop",
      "agents[2].backend.seed",
    ]);
    expect(config.notes).toEqual(
      expect.arrayContaining([
        "agents[0].backend: openai-compatible models do not take top_k; it is ignored.",
        "agents[1].backend: anthropic models do not take frequency_penalty, presence_penalty, seed; they are ignored.",
      ]),
    );
  });

  it("takes a framework agent's endpoint, key and generation settings from its llm_config, and lists what it does not use", () => {
    const config = parseRoomConfig(
      [
        "agents:",
        "  - id: listed",
        "    backend:",
        "      type: ag2",
        "      agent_config:",
        "        type: assistant",
        "        name: Helper",
        "        system_message: You help.",
        "        code_execution_config: false",
        "        llm_config:",
        "          temperature: 0.3",
        "          cache_seed: 42",
        "          config_list:",
        "            - { api_type: openai, model: local-model, base_url: 'http://localhost:8000/v1/', api_key: '${LOCAL_KEY}', max_tokens: 300, api_version: '2024' }",
        "            - { api_type: openai, model: fallback-model }",
        "  - id: inline",
        "    backend:",
        "      type: autogen",
        "      group_config:",
        "        llm_config: { api_type: anthropic, model: claude-sonnet-4-5, temperature: 0.9, top_k: 20 }",
      ].join("\n"),
      { env: listing },
    );
    expect(config.agents.map((agent) => [agent.model, agent.modelOptions])).toEqual([
      ["openai:local-model", { baseUrl: "http://localhost:8000/v1", apiKeyEnv: "LOCAL_KEY", temperature: 0.3, maxOutputTokens: 300 }],
      ["anthropic:claude-sonnet-4-5", { temperature: 0.9, topK: 20 }],
    ]);
    expect(config.ignored).toEqual([
      "agents[0].backend.agent_config.type",
      "agents[0].backend.agent_config.name",
      "agents[0].backend.agent_config.code_execution_config",
      "agents[0].backend.agent_config.llm_config.cache_seed",
      "agents[0].backend.agent_config.llm_config.config_list[0].api_version",
      "agents[0].backend.agent_config.llm_config.config_list[1]",
    ]);
    const bad = failure(
      "agents:\n  - id: a\n    backend:\n      type: ag2\n      agent_config:\n        llm_config: { model: m, base_url: 'file:///etc' }\n",
    );
    expect(bad.key).toBe("agents[0].backend.agent_config.llm_config.base_url");
    expect(bad.line).toBe(6);
  });

  it("refuses a bad endpoint, key variable or generation setting, naming the key and line", () => {
    const one = (backend: string) => failure(`agents:\n  - id: a\n    backend: { type: vllm, model: m, ${backend} }`);
    expect(one("base_url: 'ftp://x'").message).toMatch(/agents\[0\]\.backend\.base_url \(line 3\): must be an http\(s\) address/);
    expect(one("api_key_env: 'not a name'").message).toMatch(/api_key_env .*must name an environment variable/);
    expect(one("temperature: 3").message).toMatch(/temperature .*from 0 to 2/);
    expect(one("top_p: -1").message).toMatch(/top_p .*from 0 to 1/);
    expect(one("max_tokens: 0").message).toMatch(/max_tokens .*whole number/);
    expect(one("frequency_penalty: 3").message).toMatch(
      /agents\[0\]\.backend\.frequency_penalty \(line 3\): must be a number from -2 to 2, not 3/,
    );
    expect(one("presence_penalty: 'high'").message).toMatch(/presence_penalty .*from -2 to 2, not "high"/);
    expect(one("top_k: 0").message).toMatch(/top_k .*whole number from 1 to 1000/);
    expect(one("seed: 1.5").message).toMatch(/seed .*whole number/);
    expect(one("stop: []").message).toMatch(/stop .*text or a list of 1 to 16 texts/);
    expect(one("stop: [1, 2]").message).toMatch(/stop .*text or a list/);
  });
  describe("endpoints and keys a file names", () => {
    const team = (backend: string) => `agents:\n  - id: a\n    backend: { ${backend} }\n`;

    it("refuses an endpoint the server does not list, unless an admin imports", () => {
      const anonymous = failure(team("type: vllm, model: m, base_url: 'https://llm.example.com/v1'"));
      expect(anonymous.status).toBe(400);
      expect(anonymous.details).toEqual({ key: "agents[0].backend.base_url", line: 3 });
      expect(anonymous.message).toBe(
        "agents[0].backend.base_url (line 3): https://llm.example.com/v1 is not an endpoint this server lets imported teams use; " +
          "list it in PARLEY_IMPORT_ENDPOINTS on the server, or import the team signed in as admin.",
      );
      const admin = parseRoomConfig(team("type: vllm, model: m, base_url: 'https://llm.example.com/v1'"), { admin: true });
      expect(admin.agents[0]!.modelOptions).toEqual({ baseUrl: "https://llm.example.com/v1" });
      // An admin's named host is looked up before the room is made.
      expect(admin.hostsToResolve).toEqual([{ hostname: "llm.example.com", key: "agents[0].backend.base_url", line: 3 }]);
      // A framework agent's endpoint is held to the same rule.
      const framework = failure(
        "agents:\n  - id: a\n    backend:\n      type: ag2\n      agent_config:\n        llm_config: { model: m, base_url: 'https://llm.example.com/v1' }\n",
      );
      expect(framework.details).toEqual({ key: "agents[0].backend.agent_config.llm_config.base_url", line: 6 });
    });

    it("refuses loopback, link-local and private addresses, even for an admin, unless listed", () => {
      for (const url of [
        "http://127.0.0.1:8000/v1",
        "http://localhost:11434/v1",
        "http://169.254.169.254/latest",
        "http://[::1]:8000/v1",
        "http://10.1.2.3/v1",
        "http://192.168.1.20:1234/v1",
        "http://2130706433/v1",
      ]) {
        const refused = failure(team(`type: vllm, model: m, base_url: '${url}'`), { admin: true });
        expect(refused.key).toBe("agents[0].backend.base_url");
        expect(refused.message).toMatch(
          /^agents\[0\]\.backend\.base_url \(line 3\): .* is on a loopback, link-local or private address; list it in PARLEY_IMPORT_ENDPOINTS/,
        );
      }
      // Listed prefixes cover their own paths, segment by segment, and nothing else.
      const listed = parseRoomConfig(team("type: vllm, model: m, base_url: 'http://localhost:11434/v1/team/'"), { env: listing });
      expect(listed.agents[0]!.modelOptions).toEqual({ baseUrl: "http://localhost:11434/v1/team" });
      expect(listed.hostsToResolve).toEqual([]);
      expect(failure(team("type: vllm, model: m, base_url: 'http://localhost:11434/v10'"), { env: listing }).key).toBe(
        "agents[0].backend.base_url",
      );
      expect(failure(team("type: vllm, model: m, base_url: 'http://localhost:11435/v1'"), { env: listing }).key).toBe(
        "agents[0].backend.base_url",
      );
      // The server's own endpoint for the provider, and a known hosted service's, need no listing.
      const server = getEnv({ NODE_ENV: "test", OPENAI_COMPATIBLE_BASE_URL: "http://localhost:11434/v1" });
      expect(
        parseRoomConfig(team("type: vllm, model: m, base_url: 'http://localhost:11434/v1/'"), { env: server }).agents[0]!.modelOptions,
      ).toEqual({
        baseUrl: "http://localhost:11434/v1",
      });
      expect(
        parseRoomConfig(team("type: chatcompletion, model: m, base_url: 'https://api.groq.com/openai/v1'")).agents[0]!.modelOptions,
      ).toEqual({
        baseUrl: "https://api.groq.com/openai/v1",
        apiKeyEnv: "GROQ_API_KEY",
      });
    });

    it("refuses an endpoint carrying credentials, a query or a fragment", () => {
      expect(failure(team("type: vllm, model: m, base_url: 'https://user:secret@llm.example.com/v1'"), { admin: true }).message).toMatch(
        /base_url \(line 3\): must not carry a user name or password/,
      );
      expect(failure(team("type: vllm, model: m, base_url: 'https://llm.example.com/v1?key=1'"), { admin: true }).message).toMatch(
        /without a query/,
      );
    });

    it("reads only key variables the server lists, naming the key and line of any other", () => {
      // The hostile file: an endpoint of its own and the admin's token as its key.
      const hostile = team("type: openai, base_url: 'https://evil/v1', api_key_env: PARLEY_ADMIN_TOKEN");
      expect(failure(hostile).key).toBe("agents[0].backend.base_url");
      const asAdmin = failure(hostile, { admin: true });
      expect(asAdmin.details).toEqual({ key: "agents[0].backend.api_key_env", line: 3 });
      expect(asAdmin.message).toBe(
        "agents[0].backend.api_key_env (line 3): PARLEY_ADMIN_TOKEN is not a key variable this server lets agents use; list it in PARLEY_IMPORT_KEY_VARIABLES on the server to allow it.",
      );
      // No endpoint of its own: still no variable but the listed ones, also written as ${NAME}.
      for (const name of ["ADMIN_TOKEN", "DATABASE_URL", "ANTHROPIC_API_KEY"]) {
        expect(failure(team(`type: openai, api_key_env: ${name}`)).message).toMatch(
          new RegExp(`^agents\\[0\\]\\.backend\\.api_key_env \\(line 3\\): ${name} is not a key variable`),
        );
      }
      const referenced = failure("agents:\n  - id: a\n    backend:\n      type: openai\n      api_key: ${DATABASE_URL}\n");
      expect(referenced.details).toEqual({ key: "agents[0].backend.api_key", line: 5 });
      // A hosted service's own variable goes only to that service.
      expect(parseRoomConfig(team("type: grok, api_key_env: XAI_API_KEY")).agents[0]!.modelOptions).toEqual({
        baseUrl: "https://api.x.ai/v1",
        apiKeyEnv: "XAI_API_KEY",
      });
      expect(failure(team("type: groq, api_key_env: XAI_API_KEY")).key).toBe("agents[0].backend.api_key_env");
      // Naming the provider's own server-wide key at the server's endpoint is naming nothing.
      expect(parseRoomConfig(team("type: openai, api_key_env: OPENAI_API_KEY")).agents[0]!.modelOptions).toEqual({});
      expect(
        failure(team("type: vllm, model: m, base_url: 'http://localhost:8000/v1', api_key_env: OPENAI_API_KEY"), { env: listing }).key,
      ).toBe("agents[0].backend.api_key_env");
      // A listed variable is taken.
      expect(parseRoomConfig(team("type: cerebras, api_key_env: MY_CEREBRAS_KEY"), { env: listing }).agents[0]!.modelOptions).toEqual({
        baseUrl: "https://api.cerebras.ai/v1",
        apiKeyEnv: "MY_CEREBRAS_KEY",
      });
    });

    it("says that the server's key is not sent to an endpoint the file names", () => {
      const config = parseRoomConfig(
        [
          "agents:",
          "  - id: a",
          "    backend: { type: openai, base_url: 'http://localhost:8000/v1' }",
          "  - id: b",
          "    backend: { type: vllm, model: m, base_url: 'http://localhost:8000/v1' }",
        ].join("\n"),
        { env: listing },
      );
      expect(config.notes).toEqual([
        "agents[0].backend.model was not set; using gpt-5.",
        "agents[0].backend.base_url: the server's OPENAI_API_KEY is never sent to an endpoint a file names; this agent cannot run until its file names a key variable (api_key_env) the server allows.",
        "agents[1].backend.base_url: the server's OPENAI_COMPATIBLE_API_KEY is never sent to an endpoint a file names; this agent calls http://localhost:8000/v1 without a key.",
      ]);
    });

    it("checks nothing of an offline import's backends", () => {
      const config = parseRoomConfig(team("type: openai, base_url: 'https://evil/v1', api_key_env: PARLEY_ADMIN_TOKEN"), { offline: true });
      expect(config.agents[0]).toMatchObject({ model: "script:a", modelOptions: {} });
    });
  });

  it("reads the team's id, which must be long enough not to be guessed", () => {
    const agents = "agents:\n  - id: a\n    backend: {type: openai}\n";
    expect(parseRoomConfig(agents).teamId).toBeNull();
    const named = parseRoomConfig(`team_id: harbour-team_2024-q3-x9\n${agents}`);
    expect(named.teamId).toBe("harbour-team_2024-q3-x9");
    expect(named.ignored).toEqual([]);
    for (const bad of ["assistant", "'has spaces in it, sixteen+'", "'semi;colons;are;not;taken'"]) {
      const refused = failure(`team_id: ${bad}\n${agents}`);
      expect(refused.details).toEqual({ key: "team_id", line: 1 });
      expect(refused.message).toMatch(/^team_id \(line 1\): must be 16 to 128 letters, digits, - or _\. .*anyone who knows it shares them/);
    }
  });
});

describe("hosted services named by their endpoint", () => {
  const agent = (backend: string) => `agents:\n  - id: a\n    backend: { ${backend} }\n`;

  it("give the agent the service's key variable on each of the service's documented hosts, as its named backend would", () => {
    const cases: [string, string][] = [
      ["https://api.cerebras.ai/v1", "CEREBRAS_API_KEY"],
      ["https://openrouter.ai/api/v1", "OPENROUTER_API_KEY"],
      ["https://api.fireworks.ai/inference/v1", "FIREWORKS_API_KEY"],
      ["https://dashscope.aliyuncs.com/compatible-mode/v1", "DASHSCOPE_API_KEY"],
      ["https://dashscope-intl.aliyuncs.com/compatible-mode/v1", "DASHSCOPE_API_KEY"],
      ["https://api.z.ai/api/coding/paas/v4", "ZAI_API_KEY"],
      ["https://api.studio.nebius.ai/v1", "NEBIUS_API_KEY"],
      ["https://api.studio.nebius.com/v1", "NEBIUS_API_KEY"],
      ["https://api.moonshot.cn/v1", "MOONSHOT_API_KEY"],
    ];
    for (const [baseUrl, keyEnv] of cases) {
      const config = parseRoomConfig(agent(`type: chatcompletion, model: m, base_url: '${baseUrl}'`));
      expect(config.agents[0]!.modelOptions).toEqual({ baseUrl, apiKeyEnv: keyEnv });
      expect(config.notes).toEqual([]);
    }
    expect(parseRoomConfig(agent("type: cerebras, model: m")).agents[0]!.modelOptions).toEqual({
      baseUrl: "https://api.cerebras.ai/v1",
      apiKeyEnv: "CEREBRAS_API_KEY",
    });
  });

  it("is recognised by https on the service's own host only", () => {
    // Plain http, another port or a look-alike host is not the service: an admin's import of it gets no key.
    for (const baseUrl of ["https://api.cerebras.ai.example.com/v1", "https://api.cerebras.ai:8443/v1"]) {
      const config = parseRoomConfig(agent(`type: chatcompletion, model: m, base_url: '${baseUrl}'`), { admin: true });
      expect(config.agents[0]!.modelOptions).toEqual({ baseUrl });
    }
  });
});

describe("endpoints written as ${VARIABLE}", () => {
  const env = getEnv({ NODE_ENV: "test", PARLEY_IMPORT_KEY_VARIABLES: "TEAM_URL" } as NodeJS.ProcessEnv);
  const file = "agents:\n  - id: a\n    backend:\n      type: chatcompletion\n      base_url: ${TEAM_URL}\n";

  it("take the variable's value under the endpoint rules, naming the variable instead of the value", () => {
    const hosted = parseRoomConfig(file, { env, secrets: { TEAM_URL: "https://api.fireworks.ai/inference/v1" } });
    expect(hosted.agents[0]!.modelOptions).toMatchObject({
      baseUrl: "https://api.fireworks.ai/inference/v1",
      baseUrlEnv: "TEAM_URL",
      apiKeyEnv: "FIREWORKS_API_KEY",
    });
    const inside = failure(file, { env, secrets: { TEAM_URL: "http://10.1.2.3:8000/v1" }, admin: true });
    expect(inside.message).toBe(
      "agents[0].backend.base_url (line 5): ${TEAM_URL} is on a loopback, link-local or private address; list it in PARLEY_IMPORT_ENDPOINTS on the server to allow it.",
    );
    expect(failure(file, { env, secrets: { TEAM_URL: "https://llm.example.com/v1" } }).message).toMatch(
      /\$\{TEAM_URL\} is not an endpoint this server lets imported teams use/,
    );
    expect(failure(file, { secrets: { TEAM_URL: "https://api.fireworks.ai/inference/v1" } }).message).toMatch(
      /TEAM_URL is not a variable this server lets imported teams read/,
    );
  });
});

describe("the older format", () => {
  it("converts its agents, models, settings and system messages, with a note naming the format", () => {
    const config = parseRoomConfig(fixture("older-format-team.yaml"));
    expect(config.agents.map((agent) => [agent.name, agent.model, agent.systemPrompt])).toEqual([
      ["agent_1", "openai:o4-mini", ""],
      ["agent_2", "google:gemini-2.5-pro", "You are a research specialist."],
      ["agent_3", "openai-compatible:grok-4", ""],
    ]);
    expect(config.agents[1]!.modelOptions).toEqual({ temperature: 0.4, topP: 0.9 });
    expect(config.agents[2]!.modelOptions).toMatchObject({ baseUrl: "https://api.x.ai/v1", apiKeyEnv: "XAI_API_KEY", temperature: 0.2 });
    expect(config.task).toBe("");
    expect(config.notes.at(-1)).toMatch(/^This file is in the older format \(agent_id, agent_type, model_config\)/);
    expect(config.ignored).toEqual(
      expect.arrayContaining(["orchestrator.max_duration", "agents[0].model_config.tools", "streaming_display", "logging", "task"]),
    );
  });

  it("refuses an agent it cannot read, saying what the current format wants", () => {
    const refused = failure("agents:\n  - agent_id: 1\n    model_config: {model: gpt-4o}\n");
    expect(refused.message).toMatch(
      /^agents\[0\]\.agent_type \(line 2\): is required\. This file is in the older format \(agent_id, agent_type, model_config\)\. In the current format each agent has an `id`/,
    );
  });
});

describe("an agent's MCP servers and custom tools", () => {
  const withTools = (tools: string, env: Env = bare, admin = false) =>
    parseRoomConfig(`agents:\n  - id: a\n    backend:\n      type: openai\n${tools}`, { env, admin });
  const endpoints = getEnv({
    NODE_ENV: "test",
    PARLEY_IMPORT_ENDPOINTS: "http://localhost:8000/mcp",
    PARLEY_IMPORT_KEY_VARIABLES: "NOTION_TOKEN",
  } as NodeJS.ProcessEnv);

  it("reads servers as a list or a mapping, with their transport, headers and the tools the file allows", () => {
    const config = withTools(
      [
        "      mcp_servers:",
        "        notion:",
        "          type: streamable-http",
        "          url: http://localhost:8000/mcp",
        "          headers: {Authorization: 'Bearer ${NOTION_TOKEN}', X-Team: written-in-the-file}",
        "        files:",
        "          command: npx",
        "          args: ['-y', '@modelcontextprotocol/server-filesystem', '/tmp']",
        "          env: {DEBUG: '1'}",
        "      allowed_tools: [Read, mcp__notion__search, mcp__notion__fetch]",
        "      exclude_tools: [mcp__files__write_file]",
      ].join("\n"),
      endpoints,
    );
    expect(config.agents[0]!.modelOptions!.mcpServers).toEqual([
      {
        name: "notion",
        transport: "streamable-http",
        url: "http://localhost:8000/mcp",
        headers: { Authorization: "Bearer ${NOTION_TOKEN}" },
        allowedTools: ["search", "fetch"],
        importedByAdmin: false,
      },
      {
        name: "files",
        transport: "stdio",
        command: "npx",
        args: ["-y", "@modelcontextprotocol/server-filesystem", "/tmp"],
        env: { DEBUG: "1" },
        excludedTools: ["write_file"],
        importedByAdmin: false,
      },
    ]);
    expect(config.notes).toContain(
      "agents[0].backend.mcp_servers.notion.headers.X-Team: a value written in the file is not used; write it as ${VARIABLE} naming the variable that holds it.",
    );
    expect(config.ignored).not.toContain("agents[0].backend.allowed_tools");
  });

  it("refuses a server it cannot read, naming the key and line", () => {
    expect(() => withTools("      mcp_servers:\n        - name: web\n          type: websocket\n          url: ws://x\n")).toThrow(
      'agents[0].backend.mcp_servers[0].type (line 7): must be "stdio", "streamable-http" or "sse", not "websocket"',
    );
    expect(() => withTools("      mcp_servers:\n        - type: stdio\n          command: npx\n")).toThrow(
      "agents[0].backend.mcp_servers[0].name (line 6): is required: the server's name",
    );
    expect(() => withTools("      mcp_servers:\n        - name: s\n          type: stdio\n")).toThrow(/command \(line \d+\): is required/);
    expect(() => withTools("      mcp_servers:\n        - name: s\n          url: 'https://mcp.example.com/mcp?key=secret'\n")).toThrow(
      /without a query/,
    );
  });

  it("refuses a value down to the item of a list that is wrong, naming its line and column", () => {
    const refused = (() => {
      try {
        withTools("      mcp_servers:\n        - name: s\n          command: npx\n          args: [serve, {port: 1}]\n");
      } catch (error) {
        return error;
      }
    })();
    expect(refused).toBeInstanceOf(ConfigImportError);
    expect(refused).toMatchObject({ key: "agents[0].backend.mcp_servers[0].args[1]", line: 8, column: 25 });
    expect((refused as Error).message).toBe("agents[0].backend.mcp_servers[0].args[1] (line 8): must be a list of texts");
    expect(() => withTools("      mcp_servers:\n        - name: s\n          command: npx\n          args: serve\n")).toThrow(
      "agents[0].backend.mcp_servers[0].args (line 8): must be a list of texts",
    );
  });

  it("lists custom tools with why they do not run here", () => {
    const config = withTools(
      "      custom_tools:\n        - name: [two_num_tool]\n          path: tools/_two_num_tool.py\n          function: [two_num_tool]\n",
    );
    expect(config.customTools).toEqual({
      a: [
        {
          name: "two_num_tool",
          reason: expect.stringMatching(/^a function in tools\/_two_num_tool\.py .* cannot run; serve it from an MCP server/),
        },
      ],
    });
    expect(config.ignored).not.toContain("agents[0].backend.custom_tools");
  });
});

describe("an agent of another system named by its A2A agent card", () => {
  const team = (backend: string) => `agents:\n  - id: Researcher\n    backend: { type: a2a, ${backend} }\n    system_message: Be brief\n`;

  it("becomes the teammate a2a:<card URL>, written as agent_card_url or url, its prompt and other keys ignored", () => {
    const listed = getEnv({ NODE_ENV: "test", PARLEY_IMPORT_ENDPOINTS: "https://agents.example.com/team" } as NodeJS.ProcessEnv);
    for (const key of ["agent_card_url", "url"]) {
      const config = parseRoomConfig(team(`${key}: 'https://agents.example.com/team/card.json', model: x`), { env: listed });
      expect(config.agents[0]).toMatchObject({
        name: "Researcher",
        persona: "researcher",
        model: "a2a:https://agents.example.com/team/card.json",
        modelOptions: {},
        systemPrompt: "",
      });
      expect(config.ignored).toEqual(["agents[0].system_message", "agents[0].backend.model"]);
    }
  });

  it("is held to the endpoint rules: an admin may name a public card, which is looked up before the room is made", () => {
    const admin = parseRoomConfig(team("agent_card_url: 'https://agents.example.com/card'"), { admin: true });
    expect(admin.agents[0]!.model).toBe("a2a:https://agents.example.com/card");
    expect(admin.hostsToResolve).toEqual([{ hostname: "agents.example.com", key: "agents[0].backend.agent_card_url", line: 3 }]);
    expect(() => parseRoomConfig(team("agent_card_url: 'http://10.0.0.9/card'"), { admin: true })).toThrow(
      /agent_card_url \(line 3\): http:\/\/10\.0\.0\.9\/card is on a loopback, link-local or private address/,
    );
    expect(() => parseRoomConfig(team("agent_card_url: 'https://a.example.com/card', url: 'https://b.example.com/card'"))).toThrow(
      "agents[0].backend.url (line 3): names the agent card a second time; give agent_card_url only",
    );
    expect(() => parseRoomConfig(team("agent_card_url: 'ftp://agents.example.com/card'"))).toThrow(/must be an http\(s\) address/);
  });
});
