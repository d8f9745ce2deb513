import { createAnthropic } from "@ai-sdk/anthropic";
import { createGoogleGenerativeAI } from "@ai-sdk/google";
import { createOpenAI } from "@ai-sdk/openai";
import { createOpenAICompatible } from "@ai-sdk/openai-compatible";
import type { LanguageModelV4 } from "@ai-sdk/provider";
import type { AgentModelOptions } from "@/db/schema";
import { type Env, getEnv } from "@/lib/env";
import {
  type KeyedProvider,
  callsServerEndpoint,
  endpointStanding,
  hostedServiceAt,
  isPrivateAddress,
  keyVariableRefusal,
  ownKeyVariable,
  serverKeyVariable,
  shownEndpoint,
} from "./agent-endpoint";
import { createScriptModel } from "./script/script-model";
import { A2ALanguageModel } from "./a2a-model";
import { endpointUnder } from "./endpoint-address";

export const PROVIDERS = ["script", "openai", "anthropic", "google", "openai-compatible", "a2a"] as const;
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

/** How an agent's calls reach its provider: the endpoint (none: the client's default) and the key they carry. */
interface Connection {
  baseURL: string | undefined;
  apiKey: string | undefined;
}

/**
 * Where an agent's calls go and the key they carry, or why it cannot call. The server's key goes
 * only to the server's endpoint for that provider, never to one the agent names; a key variable
 * the agent names is read only when the server lets agents use it (see agent-endpoint.ts); an
 * endpoint on a private address is called only when the operator listed it. OpenAI, Anthropic and
 * Google always get a key here, because their clients would otherwise read the server's own
 * from the environment.
 */
function connectionFor(
  provider: KeyedProvider,
  own: AgentModelOptions,
  env: Env,
  secrets: NodeJS.ProcessEnv,
): Connection | { reason: string } {
  if (own.baseUrl && endpointStanding(provider, own.baseUrl, env) === "private") {
    return {
      reason: `${shownEndpoint(own)} (the endpoint this agent's configuration names) is on a loopback, link-local or private address; list it in PARLEY_IMPORT_ENDPOINTS on the server to allow it.`,
    };
  }
  const server = serverKeyVariable(provider);
  const atServer = callsServerEndpoint(provider, own, env);
  const baseURL = own.baseUrl ?? SERVER_BASE_URLS[provider](env);
  if (provider === "openai-compatible" && !baseURL) return { reason: OPENAI_COMPATIBLE_UNSET };
  const keyVariable = ownKeyVariable(provider, own, env);
  if (keyVariable) {
    const refusal = keyVariableRefusal(keyVariable, own.baseUrl, env);
    if (refusal) return { reason: refusal };
    const apiKey = secrets[keyVariable];
    if (!apiKey) {
      const service = hostedServiceAt(own.baseUrl);
      return {
        reason:
          service && service.keyEnv === keyVariable
            ? `${keyVariable} is not set on the server: this agent calls ${service.label} (${shownEndpoint(own)}), which needs its key.`
            : `${keyVariable} (the key this agent's configuration names) is not set on the server.`,
      };
    }
    return { baseURL, apiKey };
  }
  if (provider === "openai-compatible") return { baseURL, apiKey: atServer ? env.OPENAI_COMPATIBLE_API_KEY : undefined };
  if (!atServer) {
    return {
      reason: `This agent names its own endpoint (${shownEndpoint(own)}) but no key for it, and the server's ${server} is sent only to its own ${provider} endpoint. Name the key's variable with api_key_env.`,
    };
  }
  const apiKey = env[server];
  return apiKey ? { baseURL, apiKey } : { reason: `${server} is not set on the server.` };
}

const OPENAI_COMPATIBLE_UNSET =
  "OPENAI_COMPATIBLE_BASE_URL is not set on the server (e.g. http://localhost:11434/v1 for Ollama), and the agent names no endpoint of its own.";

/** The endpoint each provider's calls go to when the agent names none (undefined: the client's default). */
const SERVER_BASE_URLS: Record<KeyedProvider, (env: Env) => string | undefined> = {
  openai: (env) => env.OPENAI_BASE_URL,
  anthropic: (env) => env.ANTHROPIC_BASE_URL,
  google: (env) => env.GOOGLE_BASE_URL,
  "openai-compatible": (env) => env.OPENAI_COMPATIBLE_BASE_URL,
};

/**
 * Why an agent's model cannot run here, or null when it can. Shown in the room so that a
 * missing key reads as an explanation, not a crash.
 */
export function modelUnavailableReason(
  spec: string,
  env: Env = getEnv(),
  options: AgentModelOptions = {},
  secrets: NodeJS.ProcessEnv = process.env,
): string | null {
  const parsed = parseModelSpec(spec);
  if ("error" in parsed) return parsed.error;
  if (parsed.provider === "script") return null;
  if (parsed.provider === "a2a") return a2aCardRefusal(parsed.modelId, env);
  const connection = connectionFor(parsed.provider, options, env, secrets);
  return "reason" in connection ? connection.reason : null;
}

/**
 * Why an A2A teammate's agent card may not be reached, or null: the same rule as an imported
 * agent's own endpoint (an address that is loopback, link-local or private only when the
 * operator listed it in PARLEY_IMPORT_ENDPOINTS). No key of the server's ever goes to it.
 */
function a2aCardRefusal(cardUrl: string, env: Env): string | null {
  let url: URL;
  try {
    url = new URL(cardUrl);
  } catch {
    return `"${cardUrl}" is not an agent card URL: give the http(s) address of the A2A agent's card.`;
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") return `${cardUrl}: an agent card is fetched over http or https.`;
  if (env.PARLEY_IMPORT_ENDPOINTS.some((prefix) => endpointUnder(cardUrl, prefix))) return null;
  if (isPrivateAddress(url.hostname)) {
    return `${cardUrl} (this A2A teammate's agent card) is on a loopback, link-local or private address; list it in PARLEY_IMPORT_ENDPOINTS on the server to allow it.`;
  }
  return null;
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
  const { provider, modelId } = parsed;
  const fetch = options.fetch;
  if (provider === "script") {
    const model = createScriptModel({
      name: modelId,
      paceMs: options.scriptPaceMs ?? env.PARLEY_SCRIPT_PACE_MS,
      latencyMs: options.scriptThinkMs ?? (options.scriptPaceMs === 0 ? 0 : env.PARLEY_SCRIPT_THINK_MS),
    });
    return { model, provider, modelId, spec, scripted: true };
  }
  if (provider === "a2a") {
    const refusal = a2aCardRefusal(modelId, env);
    if (refusal) throw new ModelUnavailableError(spec, refusal);
    return { model: new A2ALanguageModel(modelId), provider, modelId, spec, scripted: false };
  }
  const connection = connectionFor(provider, options.agent ?? {}, env, options.secrets ?? process.env);
  if ("reason" in connection) throw new ModelUnavailableError(spec, connection.reason);
  const { baseURL, apiKey } = connection;
  let model: LanguageModelV4;
  switch (provider) {
    case "openai":
      model = createOpenAI({ apiKey, baseURL, fetch })(modelId);
      break;
    case "anthropic":
      model = createAnthropic({ apiKey, baseURL, fetch })(modelId);
      break;
    case "google":
      model = createGoogleGenerativeAI({ apiKey, baseURL, fetch })(modelId);
      break;
    case "openai-compatible":
      model = createOpenAICompatible({ name: env.OPENAI_COMPATIBLE_NAME, baseURL: baseURL!, apiKey, includeUsage: true, fetch }).chatModel(
        modelId,
      );
      break;
  }
  return { model, provider, modelId, spec, scripted: false };
}
