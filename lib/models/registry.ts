import { createAnthropic } from "@ai-sdk/anthropic";
import { createGoogleGenerativeAI } from "@ai-sdk/google";
import { createOpenAI } from "@ai-sdk/openai";
import { createOpenAICompatible } from "@ai-sdk/openai-compatible";
import type { LanguageModelV4 } from "@ai-sdk/provider";
import type { AgentModelOptions } from "@/db/schema";
import { type Env, getEnv } from "@/lib/env";
import { createScriptModel } from "./script/script-model";

export const PROVIDERS = ["script", "openai", "anthropic", "google", "openai-compatible"] as const;
export type ProviderName = (typeof PROVIDERS)[number];

export interface ParsedModelSpec {
  provider: ProviderName;
  modelId: string;
}

/** Parses `provider:model`; a bare name means the offline script model. */
export function parseModelSpec(spec: string): ParsedModelSpec | { error: string } {
  const index = spec.indexOf(":");
  const provider = (index < 0 ? "script" : spec.slice(0, index)) as ProviderName;
  const modelId = index < 0 ? spec : spec.slice(index + 1);
  if (!PROVIDERS.includes(provider)) {
    return { error: `Unknown model provider "${provider}" in "${spec}". Use one of: ${PROVIDERS.join(", ")}.` };
  }
  if (!modelId.trim()) return { error: `"${spec}" names no model after the provider.` };
  return { provider, modelId };
}

/**
 * Why an agent's model cannot run here, or null when it can. Shown in the room so that a
 * missing key reads as an explanation, not a crash.
 */
export function modelUnavailableReason(spec: string, env: Env = getEnv(), options: AgentModelOptions = {}, secrets: NodeJS.ProcessEnv = process.env): string | null {
  const parsed = parseModelSpec(spec);
  if ("error" in parsed) return parsed.error;
  if (parsed.provider !== "script" && options.apiKeyEnv && !secrets[options.apiKeyEnv]) {
    return `${options.apiKeyEnv} (the key this agent's configuration names) is not set on the server.`;
  }
  const ownKey = !!options.apiKeyEnv;
  switch (parsed.provider) {
    case "script":
      return null;
    case "openai":
      return env.OPENAI_API_KEY || ownKey ? null : "OPENAI_API_KEY is not set on the server.";
    case "anthropic":
      return env.ANTHROPIC_API_KEY || ownKey ? null : "ANTHROPIC_API_KEY is not set on the server.";
    case "google":
      return env.GOOGLE_GENERATIVE_AI_API_KEY || ownKey ? null : "GOOGLE_GENERATIVE_AI_API_KEY is not set on the server.";
    case "openai-compatible":
      return env.OPENAI_COMPATIBLE_BASE_URL || options.baseUrl
        ? null
        : "OPENAI_COMPATIBLE_BASE_URL is not set on the server (e.g. http://localhost:11434/v1 for Ollama), and the agent names no endpoint of its own.";
  }
}

export class ModelUnavailableError extends Error {
  constructor(
    readonly spec: string,
    reason: string,
  ) {
    super(reason);
    this.name = "ModelUnavailableError";
  }
}

export interface ResolveOptions {
  env?: Env;
  /** Milliseconds between streamed chunks of the script model (0 in tests). */
  scriptPaceMs?: number;
  /** Milliseconds the script model waits before each step (0 in tests). */
  scriptThinkMs?: number;
  /** Replaces `fetch` for HTTP providers (wire-level tests). */
  fetch?: typeof globalThis.fetch;
  /** The agent's own endpoint and key variable, over the server-wide ones. */
  agent?: AgentModelOptions;
  /** Where a key variable named by an agent is looked up (the process environment). */
  secrets?: NodeJS.ProcessEnv;
}

/** Resolves an agent's model: its `provider:model` and, where it has them, its own endpoint and key. */
export type ModelResolver = (spec: string, agent?: AgentModelOptions) => ResolvedModel;

export interface ResolvedModel {
  model: LanguageModelV4;
  provider: ProviderName;
  modelId: string;
  spec: string;
  scripted: boolean;
}

/** Turns an agent's `provider:model` string into a language model, or explains why it cannot. */
export function resolveModel(spec: string, options: ResolveOptions = {}): ResolvedModel {
  const env = options.env ?? getEnv();
  const parsed = parseModelSpec(spec);
  if ("error" in parsed) throw new ModelUnavailableError(spec, parsed.error);
  const own = options.agent ?? {};
  const secrets = options.secrets ?? process.env;
  const reason = modelUnavailableReason(spec, env, own, secrets);
  if (reason) throw new ModelUnavailableError(spec, reason);
  const { provider, modelId } = parsed;
  const fetch = options.fetch;
  const ownKey = own.apiKeyEnv ? secrets[own.apiKeyEnv] : undefined;
  let model: LanguageModelV4;
  switch (provider) {
    case "script":
      model = createScriptModel({
        name: modelId,
        paceMs: options.scriptPaceMs ?? env.PARLEY_SCRIPT_PACE_MS,
        latencyMs: options.scriptThinkMs ?? (options.scriptPaceMs === 0 ? 0 : env.PARLEY_SCRIPT_THINK_MS),
      });
      break;
    case "openai":
      model = createOpenAI({ apiKey: ownKey ?? env.OPENAI_API_KEY, baseURL: own.baseUrl ?? env.OPENAI_BASE_URL, fetch })(modelId);
      break;
    case "anthropic":
      model = createAnthropic({ apiKey: ownKey ?? env.ANTHROPIC_API_KEY, baseURL: own.baseUrl ?? env.ANTHROPIC_BASE_URL, fetch })(modelId);
      break;
    case "google":
      model = createGoogleGenerativeAI({ apiKey: ownKey ?? env.GOOGLE_GENERATIVE_AI_API_KEY, baseURL: own.baseUrl ?? env.GOOGLE_BASE_URL, fetch })(
        modelId,
      );
      break;
    case "openai-compatible":
      model = createOpenAICompatible({
        name: env.OPENAI_COMPATIBLE_NAME,
        baseURL: own.baseUrl ?? env.OPENAI_COMPATIBLE_BASE_URL!,
        apiKey: own.baseUrl ? ownKey : (ownKey ?? env.OPENAI_COMPATIBLE_API_KEY),
        includeUsage: true,
        fetch,
      }).chatModel(modelId);
      break;
  }
  return { model, provider, modelId, spec, scripted: provider === "script" };
}
