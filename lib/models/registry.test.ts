import { generateText, tool } from "ai";
import { afterEach, describe, expect, it, vi } from "vitest";
import { z } from "zod";
import type { AgentModelOptions } from "@/db/schema";
import { type Env, getEnv } from "@/lib/env";
import { costOf, priceFor } from "./pricing";
import { ModelUnavailableError, modelUnavailableReason, parseModelSpec, resolveModel } from "./registry";

const bare: Env = getEnv({} as NodeJS.ProcessEnv);

describe("the provider registry", () => {
  it("parses provider:model, treating a bare name as the script model", () => {
    expect(parseModelSpec("openai:gpt-5")).toEqual({ provider: "openai", modelId: "gpt-5" });
    expect(parseModelSpec("openai-compatible:qwen2.5:7b")).toEqual({ provider: "openai-compatible", modelId: "qwen2.5:7b" });
    expect(parseModelSpec("songwriter")).toEqual({ provider: "script", modelId: "songwriter" });
    expect(parseModelSpec("mistral:large")).toEqual({ error: expect.stringMatching(/Unknown model provider "mistral"/) });
    expect(parseModelSpec("openai:")).toEqual({ error: expect.stringMatching(/names no model/) });
  });

  it("explains which setting a provider is missing", () => {
    expect(modelUnavailableReason("script:songwriter", bare)).toBeNull();
    expect(modelUnavailableReason("openai:gpt-5", bare)).toBe("OPENAI_API_KEY is not set on the server.");
    expect(modelUnavailableReason("anthropic:claude-sonnet-4-5", bare)).toBe("ANTHROPIC_API_KEY is not set on the server.");
    expect(modelUnavailableReason("google:gemini-2.5-flash", bare)).toBe("GOOGLE_GENERATIVE_AI_API_KEY is not set on the server.");
    expect(modelUnavailableReason("openai-compatible:llama3.1", bare)).toMatch(/^OPENAI_COMPATIBLE_BASE_URL is not set/);
    expect(modelUnavailableReason("openai:gpt-5", { ...bare, OPENAI_API_KEY: "sk" })).toBeNull();
    expect(() => resolveModel("openai:gpt-5", { env: bare })).toThrow(ModelUnavailableError);
  });

  it("resolves each provider to a model with the right id", () => {
    const env: Env = {
      ...bare,
      OPENAI_API_KEY: "sk",
      ANTHROPIC_API_KEY: "ak",
      GOOGLE_GENERATIVE_AI_API_KEY: "gk",
      OPENAI_COMPATIBLE_BASE_URL: "http://localhost:11434/v1",
    };
    expect(resolveModel("script:songwriter", { env })).toMatchObject({ provider: "script", modelId: "songwriter", scripted: true });
    expect(resolveModel("openai:gpt-5", { env }).model.modelId).toBe("gpt-5");
    expect(resolveModel("anthropic:claude-sonnet-4-5", { env }).model.provider).toMatch(/anthropic/);
    expect(resolveModel("google:gemini-2.5-flash", { env }).model.provider).toMatch(/google/);
    expect(resolveModel("openai-compatible:llama3.1", { env }).model.provider).toMatch(/openai-compatible/);
  });
});

describe("prices", () => {
  it("price a dated snapshot like its model, and only a dated one", () => {
    expect(priceFor("openai:gpt-4o-2024-08-06")).toEqual(priceFor("openai:gpt-4o"));
    expect(priceFor("openai:gpt-4o-mini-2024-07-18")).toEqual(priceFor("openai:gpt-4o-mini"));
    expect(priceFor("openai:gpt-4.1-2025-04-14")).toEqual(priceFor("openai:gpt-4.1"));
    expect(priceFor("openai:gpt-5-mini-2025-08-07")).toEqual(priceFor("openai:gpt-5-mini"));
    expect(costOf("openai:gpt-4o-2024-08-06", 1_000_000, 0)).toBeCloseTo(2.5, 10);
    expect(priceFor("openai:gpt-4o-audio-preview")).toBeNull();
  });

  it("match exact names and dated snapshots, and cost nothing for unknown or scripted models", () => {
    expect(priceFor("openai:gpt-5")).toEqual({ input: 1.25, output: 10 });
    expect(priceFor("anthropic:claude-sonnet-4-20250514")).toEqual({ input: 3, output: 15 });
    expect(priceFor("openai-compatible:llama3.1")).toBeNull();
    expect(costOf("openai:gpt-5", 1_000_000, 100_000)).toBeCloseTo(2.25, 10);
    expect(costOf("script:songwriter", 5000, 5000)).toBe(0);
    expect(costOf("openai-compatible:llama3.1", 5000, 5000)).toBe(0);
  });
});

/** Captures what a provider sends and answers with an error, so only the request is checked. */
function capturingFetch() {
  const seen: { url: string; headers: Headers; body: Record<string, unknown> }[] = [];
  const fetch = (async (input: RequestInfo | URL, init?: RequestInit) => {
    seen.push({ url: String(input), headers: new Headers(init?.headers), body: JSON.parse(String(init?.body)) });
    return new Response(JSON.stringify({ error: { message: "test stop", type: "invalid_request_error" } }), {
      status: 400,
      headers: { "content-type": "application/json" },
    });
  }) as typeof globalThis.fetch;
  return { seen, fetch };
}

const weather = { weather: tool({ description: "Look up the weather", inputSchema: z.object({ city: z.string() }) }) };

describe("requests real providers would receive", () => {
  it("OpenAI: the Responses API with a bearer key, the model and the tools", async () => {
    const { seen, fetch } = capturingFetch();
    const { model } = resolveModel("openai:gpt-5", { env: { ...bare, OPENAI_API_KEY: "sk-test" }, fetch });
    await expect(generateText({ model, prompt: "Hi", tools: weather, maxRetries: 0 })).rejects.toThrow(/test stop/);
    expect(seen[0]!.url).toBe("https://api.openai.com/v1/responses");
    expect(seen[0]!.headers.get("authorization")).toBe("Bearer sk-test");
    expect(seen[0]!.body).toMatchObject({ model: "gpt-5", tools: [{ type: "function", name: "weather" }] });
  });

  it("Anthropic: the Messages API with an x-api-key header, the model and the tools", async () => {
    const { seen, fetch } = capturingFetch();
    const { model } = resolveModel("anthropic:claude-sonnet-4-5", { env: { ...bare, ANTHROPIC_API_KEY: "ak-test" }, fetch });
    await expect(generateText({ model, prompt: "Hi", tools: weather, maxRetries: 0 })).rejects.toThrow();
    expect(seen[0]!.url).toBe("https://api.anthropic.com/v1/messages");
    expect(seen[0]!.headers.get("x-api-key")).toBe("ak-test");
    expect(seen[0]!.body).toMatchObject({ model: "claude-sonnet-4-5", tools: [{ name: "weather" }] });
  });

  it("Google: generateContent with the key header and function declarations", async () => {
    const { seen, fetch } = capturingFetch();
    const { model } = resolveModel("google:gemini-2.5-flash", { env: { ...bare, GOOGLE_GENERATIVE_AI_API_KEY: "gk-test" }, fetch });
    await expect(generateText({ model, prompt: "Hi", tools: weather, maxRetries: 0 })).rejects.toThrow();
    expect(seen[0]!.url).toMatch(/models\/gemini-2\.5-flash:generateContent$/);
    expect(seen[0]!.headers.get("x-goog-api-key")).toBe("gk-test");
    expect(JSON.stringify(seen[0]!.body.tools)).toMatch(/weather/);
  });
});

describe("an agent's own endpoint and key", () => {
  const server: Env = {
    ...bare,
    OPENAI_API_KEY: "sk-server",
    ANTHROPIC_API_KEY: "ak-server",
    GOOGLE_GENERATIVE_AI_API_KEY: "gk-server",
    OPENAI_COMPATIBLE_BASE_URL: "http://localhost:11434/v1",
    OPENAI_COMPATIBLE_API_KEY: "compat-server",
    PARLEY_IMPORT_KEY_VARIABLES: ["TEAM_KEY"],
    PARLEY_IMPORT_ENDPOINTS: ["http://127.0.0.1:9999/v1"],
  };
  const secrets = { NODE_ENV: "test", TEAM_KEY: "team-key", ADMIN_TOKEN: "the-admin-token", XAI_API_KEY: "xai-key" } as NodeJS.ProcessEnv;
  const own = "https://llm.example.com/v1";

  afterEach(() => {
    vi.unstubAllEnvs();
  });

  /** Every header value a request to `spec` carries, resolved with `agent`'s options. */
  async function headersSent(spec: string, agent: AgentModelOptions) {
    const { seen, fetch } = capturingFetch();
    const { model } = resolveModel(spec, { env: server, secrets, agent, fetch });
    await expect(generateText({ model, prompt: "Hi", maxRetries: 0 })).rejects.toThrow();
    return { url: seen[0]!.url, values: [...seen[0]!.headers.values()].join(" ") };
  }

  it("never carries the server's key to an endpoint the agent names", async () => {
    for (const spec of ["openai:gpt-5", "anthropic:claude-sonnet-4-5", "google:gemini-2.5-flash"]) {
      const reason = modelUnavailableReason(spec, server, { baseUrl: own }, secrets);
      expect(reason).toMatch(
        new RegExp(
          `names its own endpoint \\(${own.replace(/[./]/g, "\\$&")}\\) but no key for it, and the server's [A-Z_]+ is sent only to its own`,
        ),
      );
      expect(() => resolveModel(spec, { env: server, secrets, agent: { baseUrl: own } })).toThrow(ModelUnavailableError);
    }
    // The providers' clients would read the server's key from the environment themselves: still not sent.
    vi.stubEnv("OPENAI_API_KEY", "sk-from-the-environment");
    expect(modelUnavailableReason("openai:gpt-5", getEnv(), { baseUrl: own }, process.env)).toMatch(/names its own endpoint/);

    const compatible = await headersSent("openai-compatible:m", { baseUrl: own });
    expect(compatible.url).toBe(`${own}/chat/completions`);
    expect(compatible.values).not.toMatch(/compat-server|sk-server/);
  });

  it("carries the key the agent names, when the server lets agents use it, and to its own endpoint", async () => {
    const cases: [string, string, string][] = [
      ["openai:gpt-5", `${own}/responses`, "Bearer team-key"],
      ["anthropic:claude-sonnet-4-5", `${own}/messages`, "team-key"],
      ["openai-compatible:m", `${own}/chat/completions`, "Bearer team-key"],
    ];
    for (const [spec, url, header] of cases) {
      const sent = await headersSent(spec, { baseUrl: own, apiKeyEnv: "TEAM_KEY" });
      expect(sent.url).toBe(url);
      expect(sent.values).toContain(header);
      expect(sent.values).not.toMatch(/-server/);
    }
    // A known service's own variable, at that service.
    expect((await headersSent("openai-compatible:grok-4", { baseUrl: "https://api.x.ai/v1", apiKeyEnv: "XAI_API_KEY" })).values).toContain(
      "Bearer xai-key",
    );
    // At the server's own endpoint, the server's key.
    expect((await headersSent("openai-compatible:m", { baseUrl: "http://localhost:11434/v1/" })).values).toContain("Bearer compat-server");
  });

  it("never reads a key variable the server does not list", () => {
    for (const name of ["ADMIN_TOKEN", "XAI_API_KEY"]) {
      const options = { baseUrl: own, apiKeyEnv: name };
      expect(modelUnavailableReason("openai:gpt-5", server, options, secrets)).toBe(
        `${name} is not a key variable this server lets agents use; list it in PARLEY_IMPORT_KEY_VARIABLES on the server to allow it.`,
      );
      expect(() => resolveModel("openai-compatible:m", { env: server, secrets, agent: options })).toThrow(/is not a key variable/);
    }
    expect(modelUnavailableReason("openai:gpt-5", server, { apiKeyEnv: "TEAM_KEY" }, { NODE_ENV: "test" })).toBe(
      "TEAM_KEY (the key this agent's configuration names) is not set on the server.",
    );
  });

  it("refuses an endpoint on a private address unless the server lists it or is configured with it", () => {
    for (const baseUrl of ["http://169.254.169.254/latest", "http://127.0.0.1:8080/v1", "http://[::1]/v1"]) {
      expect(modelUnavailableReason("openai-compatible:m", server, { baseUrl }, secrets)).toBe(
        `${baseUrl} (the endpoint this agent's configuration names) is on a loopback, link-local or private address; list it in PARLEY_IMPORT_ENDPOINTS on the server to allow it.`,
      );
    }
    expect(modelUnavailableReason("openai-compatible:m", server, { baseUrl: "http://127.0.0.1:9999/v1" }, secrets)).toBeNull();
    expect(modelUnavailableReason("openai-compatible:m", server, { baseUrl: "http://localhost:11434/v1" }, secrets)).toBeNull();
  });
});
