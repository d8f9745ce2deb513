import { generateText, tool } from "ai";
import { describe, expect, it } from "vitest";
import { z } from "zod";
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
