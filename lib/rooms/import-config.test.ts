import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { ConfigImportError, parseRoomConfig } from "./import-config";

const fixture = (name: string) => fs.readFileSync(path.join(__dirname, "fixtures", name), "utf8");

function failure(text: string): ConfigImportError {
  try {
    parseRoomConfig(text);
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
    const config = parseRoomConfig(fixture("real-world-team.yaml"));
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
    expect(config.ignored).toEqual(
      expect.arrayContaining([
        "agents[1].backend.mcp_servers",
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
    const error = failure("agents:\n  - id: a\n    backend:\n      type: openai\n  - id: b\n    backend:\n      type: telepathy\n      model: x\n");
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
    );
    expect(config.agents.map((agent) => [agent.model, agent.modelOptions])).toEqual([
      ["openai-compatible:qwen2.5-coder", { baseUrl: "http://10.0.0.5:8000/v1", temperature: 0.2, topP: 0.9, maxOutputTokens: 800 }],
      ["openai-compatible:grok-4", { baseUrl: "https://api.x.ai/v1", apiKeyEnv: "XAI_API_KEY" }],
      ["openai-compatible:llama-3.3-70b", { baseUrl: "https://api.cerebras.ai/v1", apiKeyEnv: "MY_CEREBRAS_KEY" }],
      ["openai:gpt-5", {}],
    ]);
    expect(config.notes).toContain("agents[3].backend.api_key: a key written in the file is not used; name the environment variable that holds it with api_key_env.");
    expect(JSON.stringify(config)).not.toContain("sk-pasted-into-the-file");
    expect(config.ignored).toEqual([]);
  });

  it("maps every generation setting the AI SDK takes, and lists those an agent's provider does not", () => {
    const settings = "temperature: 0.4, top_p: 0.8, top_k: 40, max_tokens: 900, frequency_penalty: 0.5, presence_penalty: -0.25, stop: ['END', '###'], seed: 7";
    const config = parseRoomConfig(
      [
        "agents:",
        `  - id: local\n    backend: { type: vllm, model: qwen, base_url: 'http://10.0.0.5:8000/v1', ${settings} }`,
        `  - id: claude\n    backend: { type: claude, model: claude-sonnet-4-5, ${settings} }`,
        `  - id: gpt\n    backend: { type: openai, model: gpt-5, ${settings} }`,
        "  - id: gemini\n    backend: { type: gemini, model: gemini-2.5-flash, stop: END, seed: 3 }",
      ].join("\n"),
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
    const bad = failure("agents:\n  - id: a\n    backend:\n      type: ag2\n      agent_config:\n        llm_config: { model: m, base_url: 'file:///etc' }\n");
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
    expect(one("frequency_penalty: 3").message).toMatch(/agents\[0\]\.backend\.frequency_penalty \(line 3\): must be a number from -2 to 2, not 3/);
    expect(one("presence_penalty: 'high'").message).toMatch(/presence_penalty .*from -2 to 2, not "high"/);
    expect(one("top_k: 0").message).toMatch(/top_k .*whole number from 1 to 1000/);
    expect(one("seed: 1.5").message).toMatch(/seed .*whole number/);
    expect(one("stop: []").message).toMatch(/stop .*text or a list of 1 to 16 texts/);
    expect(one("stop: [1, 2]").message).toMatch(/stop .*text or a list/);
  });
});
