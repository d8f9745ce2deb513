import { type Document, LineCounter, parseDocument } from "yaml";
import { type Env, getEnv } from "@/lib/env";
import { ownValue } from "@/lib/own-value";
import {
  HOSTED_SERVICES,
  callsServerEndpoint,
  endpointStanding,
  hostedServiceAt,
  keyVariableRefusal,
  serverKeyVariable,
  shownEndpoint,
  isPrivateAddress,
} from "@/lib/models/agent-endpoint";
import { endpointUnder } from "@/lib/models/endpoint-address";
import {
  type GenerationSetting,
  type GenerationSettings,
  type ModelOptions,
  SETTING_FILE_KEYS,
  SUPPORTED_SETTINGS,
} from "@/lib/models/generation-settings";
import { ConfigImportError, type Path, Reader, pathName } from "./config-reader";
import { type AgentTools, type ListedCustomTool, readAgentTools } from "./import-tools";
import { ENV_REFERENCE, type Findings, type NamedEndpoint, readEndpoint } from "./import-endpoint";
import type { RoomSettingsPatch } from "./room-settings";
import type { PersonaTemplate } from "./templates";

export { ConfigImportError };

type Provider = "openai" | "anthropic" | "google" | "openai-compatible";

/**
 * The backends of that system's configuration files and the provider that serves each here:
 * for hosted OpenAI-compatible services, their endpoint and the variable their key is usually
 * kept in, used when the file names neither.
 */
const BACKEND_PROVIDERS: Record<string, { provider: Provider; defaultModel: string; baseUrl?: string; keyEnv?: string }> = {
  openai: { provider: "openai", defaultModel: "gpt-5" },
  claude: { provider: "anthropic", defaultModel: "claude-sonnet-4-5" },
  claude_code: { provider: "anthropic", defaultModel: "claude-sonnet-4-5" },
  gemini: { provider: "google", defaultModel: "gemini-2.5-flash" },
  grok: { provider: "openai-compatible", defaultModel: "grok-4", ...HOSTED_SERVICES.grok },
  lmstudio: { provider: "openai-compatible", defaultModel: "local-model" },
  vllm: { provider: "openai-compatible", defaultModel: "local-model" },
  sglang: { provider: "openai-compatible", defaultModel: "local-model" },
  chatcompletion: { provider: "openai-compatible", defaultModel: "default" },
  azure_openai: { provider: "openai-compatible", defaultModel: "gpt-4o" },
  zai: { provider: "openai-compatible", defaultModel: "glm-4.5", ...HOSTED_SERVICES.zai },
  cerebras: { provider: "openai-compatible", defaultModel: "llama-3.3-70b", ...HOSTED_SERVICES.cerebras },
  together: { provider: "openai-compatible", defaultModel: "default", ...HOSTED_SERVICES.together },
  fireworks: { provider: "openai-compatible", defaultModel: "default", ...HOSTED_SERVICES.fireworks },
  groq: { provider: "openai-compatible", defaultModel: "default", ...HOSTED_SERVICES.groq },
  openrouter: { provider: "openai-compatible", defaultModel: "default", ...HOSTED_SERVICES.openrouter },
  moonshot: { provider: "openai-compatible", defaultModel: "default", ...HOSTED_SERVICES.moonshot },
  nebius: { provider: "openai-compatible", defaultModel: "default", ...HOSTED_SERVICES.nebius },
  poe: { provider: "openai-compatible", defaultModel: "default", ...HOSTED_SERVICES.poe },
  qwen: { provider: "openai-compatible", defaultModel: "qwen-plus", ...HOSTED_SERVICES.qwen },
};

/**
 * Agent frameworks that system drives through adapters. Parley runs such an agent as one
 * agent on the model its `llm_config` names; the framework's own machinery is ignored.
 */
const FRAMEWORK_BACKENDS = new Set(["ag2", "autogen", "langgraph", "smolagent", "agentscope", "openai_agents"]);

const API_TYPES: Record<string, Provider> = {
  openai: "openai",
  anthropic: "anthropic",
  google: "google",
  gemini: "google",
};

/**
 * The model an adapter agent's `llm_config` names (a mapping, a list, or `config_list`), and
 * where its settings are: the entry that names the model, then the `llm_config` around a
 * `config_list` (which often holds the temperature). Only the first entry is used.
 */
function frameworkModel(
  backend: unknown,
  backendPath: Path,
): { provider: Provider; model: string; systemMessage?: string; holder: string; settingsAt: Path[]; fallbacks: Path[] } | null {
  const source = (backend ?? {}) as Record<string, Record<string, unknown> | undefined>;
  for (const holderKey of ["agent_config", "group_config"]) {
    const holder = source[holderKey];
    if (!holder) continue;
    let config = holder.llm_config as unknown;
    let configPath: Path = [...backendPath, holderKey, "llm_config"];
    const around: Path[] = [];
    if (
      config &&
      typeof config === "object" &&
      !Array.isArray(config) &&
      Array.isArray((config as { config_list?: unknown }).config_list)
    ) {
      around.push(configPath);
      config = (config as { config_list: unknown[] }).config_list;
      configPath = [...configPath, "config_list"];
    }
    const list = Array.isArray(config) ? config : null;
    const first = (list ? list[0] : config) as { api_type?: unknown; model?: unknown } | undefined;
    if (typeof first?.model === "string" && first.model.trim()) {
      return {
        provider: ownValue(API_TYPES, String(first.api_type ?? "openai").toLowerCase()) ?? "openai-compatible",
        model: String(first.model),
        systemMessage: typeof holder.system_message === "string" ? holder.system_message : undefined,
        holder: holderKey,
        settingsAt: [list ? [...configPath, 0] : configPath, ...around],
        fallbacks: (list ?? []).slice(1).map((_, index) => [...configPath, index + 1]),
      };
    }
  }
  return null;
}

const COLORS = ["#d6336c", "#1c7ed6", "#2f9e44", "#f59f00", "#7048e8", "#0ca678", "#e8590c", "#ae3ec9", "#1098ad", "#5c940d"];
const MAX_AGENTS = 64;
/** An agent's id becomes its name on the roster and in the feed. */
const MAX_AGENT_ID = 80;

/**
 * The document as plain values, for the parts read as a whole (a framework's nested config).
 * The YAML library refuses documents whose aliases would expand without bound; that is the
 * file's fault and is said so.
 */
function plainDocument(doc: Document): unknown {
  try {
    return doc.toJS({ maxAliasCount: 100 });
  } catch (error) {
    const reason = (error as Error).message.split("\n")[0]!;
    throw new ConfigImportError(`The file could not be read: ${reason}`, null, null);
  }
}

export interface ImportedConfig {
  task: string;
  /** The file's `team_id`: the key to its agents' knowledge vaults, shared with every import that names it. */
  teamId: string | null;
  agents: PersonaTemplate[];
  settings: RoomSettingsPatch;
  /** Keys accepted but not used, as paths (`agents[0].backend.cwd`). */
  ignored: string[];
  /** Things worth knowing (defaults filled in, offline models, keys not sent). */
  notes: string[];
  /** Per agent (by persona), the custom tools its file names, which Parley lists but cannot run. */
  customTools: Record<string, ListedCustomTool[]>;
  /**
   * Host names of endpoints only an admin's import may name, with where the file names them:
   * each must resolve to public addresses only (see `hostAddressRefusal`).
   */
  hostsToResolve: { hostname: string; key: string; line: number | null }[];
}

export interface ImportOptions {
  /** Run every agent on the offline script model instead of its configured backend. */
  offline?: boolean;
  /** An admin imports: agents may name endpoints that are not listed (but not private ones). */
  admin?: boolean;
  /** The settings that list the key variables and endpoints agents may name. */
  env?: Env;
  /** Where the variables a file names are read (the process environment). */
  secrets?: Record<string, string | undefined>;
}

/** How each generation setting is read from a file, and the range it must be in. */
const SETTING_READERS: Record<GenerationSetting, (reader: Reader, path: Path) => GenerationSettings[GenerationSetting]> = {
  temperature: (reader, path) => reader.optionalNumber(path, 0, 2),
  topP: (reader, path) => reader.optionalNumber(path, 0, 1),
  topK: (reader, path) => reader.optionalInt(path, 1, 1000),
  maxOutputTokens: (reader, path) => reader.optionalInt(path, 1, 1_000_000),
  frequencyPenalty: (reader, path) => reader.optionalNumber(path, -2, 2),
  presencePenalty: (reader, path) => reader.optionalNumber(path, -2, 2),
  stopSequences: (reader, path) => reader.optionalTexts(path, 16),
  seed: (reader, path) => reader.optionalInt(path, 0, Number.MAX_SAFE_INTEGER),
};
const GENERATION_KEYS = (Object.keys(SETTING_READERS) as GenerationSetting[]).map((setting) => ({
  key: SETTING_FILE_KEYS[setting],
  setting,
  read: SETTING_READERS[setting],
}));

const SETTINGS_KEYS = ["base_url", "api_key", "api_key_env", ...GENERATION_KEYS.map((entry) => entry.key)];

/**
 * An agent's endpoint, key variable and generation settings, from its backend's keys (each
 * read from the first of `places` that has it) and the backend's defaults. A setting its
 * provider does not take is listed as ignored, with a note saying why. An endpoint or key
 * variable the server does not let imported teams name is refused (see agent-endpoint.ts).
 */
function readModelOptions(reader: Reader, places: Path[], backend: string, provider: Provider, found: Findings): ModelOptions {
  const { notes, env } = found;
  const where = (key: string): Path => {
    const place = places.find((candidate) => reader.value([...candidate, key]) !== undefined && reader.value([...candidate, key]) !== null);
    return [...(place ?? places[0]!), key];
  };
  const options: ModelOptions = {};
  const known = ownValue(BACKEND_PROVIDERS, backend);
  const endpointAt = where("base_url");
  const endpoint = readEndpoint(reader, endpointAt, found);
  if (endpoint) {
    options.baseUrl = endpoint.url;
    if (endpoint.variable) options.baseUrlEnv = endpoint.variable;
    checkEndpoint(reader, endpointAt, provider, endpoint, found);
  } else if (known?.baseUrl) {
    options.baseUrl = known.baseUrl;
  }

  const keyEnvAt = where("api_key_env");
  const keyAt = where("api_key");
  const keyEnv = reader.optionalString(keyEnvAt);
  const key = reader.optionalString(keyAt);
  let named: { name: string; at: Path } | null = null;
  if (keyEnv !== undefined) {
    if (!/^[A-Z_][A-Z0-9_]*$/.test(keyEnv)) reader.fail(keyEnvAt, "must name an environment variable, such as GROQ_API_KEY");
    named = { name: keyEnv, at: keyEnvAt };
  } else if (key !== undefined) {
    const reference = key.match(ENV_REFERENCE);
    if (reference) named = { name: reference[1]!, at: keyAt };
    else
      notes.push(
        `${pathName(keyAt)}: a key written in the file is not used; name the environment variable that holds it with api_key_env.`,
      );
  }
  const atServer = callsServerEndpoint(provider, options, env);
  if (named && !(atServer && named.name === serverKeyVariable(provider))) {
    // The server's own key at the server's own endpoint is what the agent gets without naming it.
    const refusal = keyVariableRefusal(named.name, options.baseUrl, env);
    if (refusal) reader.fail(named.at, refusal);
    options.apiKeyEnv = named.name;
  } else if (!named && !atServer && hostedServiceAt(options.baseUrl)) {
    // The service's own key, as the backend named after it would use, whichever way the file names the service.
    options.apiKeyEnv = hostedServiceAt(options.baseUrl)!.keyEnv;
  }
  if (!options.apiKeyEnv && !atServer) {
    notes.push(
      `${pathName(endpointAt)}: the server's ${serverKeyVariable(provider)} is never sent to an endpoint a file names; ` +
        (provider === "openai-compatible"
          ? `this agent calls ${shownEndpoint(options)} without a key.`
          : "this agent cannot run until its file names a key variable (api_key_env) the server allows."),
    );
  }

  const unsupported: string[] = [];
  for (const { key: name, setting, read } of GENERATION_KEYS) {
    const path = where(name);
    const value = read(reader, path);
    if (value === undefined) continue;
    if (!SUPPORTED_SETTINGS[provider].includes(setting)) {
      unsupported.push(name);
      found.ignored.push(pathName(path));
      continue;
    }
    Object.assign(options, { [setting]: value });
  }
  if (unsupported.length) {
    notes.push(
      `${pathName(places[0]!)}: ${provider} models do not take ${unsupported.join(", ")}; ${unsupported.length === 1 ? "it is" : "they are"} ignored.`,
    );
  }
  return options;
}

/**
 * Refuses an endpoint an imported agent may not name: one on a loopback, link-local or private
 * address that is not listed, or, unless an admin imports, any endpoint that is neither listed
 * nor a known service's nor the server's own. The names an admin's import reaches are looked up
 * before the room is made.
 */
function checkEndpoint(reader: Reader, at: Path, provider: Provider, endpoint: NamedEndpoint, found: Findings): void {
  checkStanding(reader, at, endpointStanding(provider, endpoint.url, found.env), endpoint, found);
}

/** Refuses a place an imported agent may not reach, given its standing (see `checkEndpoint`). */
function checkStanding(
  reader: Reader,
  at: Path,
  standing: ReturnType<typeof endpointStanding>,
  endpoint: NamedEndpoint,
  found: Findings,
): void {
  const { url, shown } = endpoint;
  if (standing === "private") {
    reader.fail(
      at,
      `${shown} is on a loopback, link-local or private address; list it in PARLEY_IMPORT_ENDPOINTS on the server to allow it.`,
    );
  }
  if (standing !== "other") return;
  if (!found.admin) {
    reader.fail(
      at,
      `${shown} is not an endpoint this server lets imported teams use; list it in PARLEY_IMPORT_ENDPOINTS on the server, or import the team signed in as admin.`,
    );
  }
  const hostname = new URL(url).hostname;
  if (!found.hostsToResolve.some((host) => host.hostname === hostname))
    found.hostsToResolve.push({ hostname, key: pathName(at), line: reader.line(at) });
}

function resolvePath(value: unknown, path: Path): unknown {
  return path.reduce<unknown>((current, part) => (current as Record<string | number, unknown> | undefined)?.[part], value);
}

function personaKey(id: string, taken: Set<string>): string {
  const base =
    id
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, "-")
      .replace(/^-+|-+$/g, "") || "agent";
  let key = base;
  for (let index = 2; taken.has(key); index++) key = `${base}-${index}`;
  taken.add(key);
  return key;
}

const HANDLED_AGENT_KEYS = new Set(["id", "backend", "system_message", "append_system_prompt"]);
const HANDLED_BACKEND_KEYS = new Set(["type", "model", ...SETTINGS_KEYS]);
/** What Parley reads of an older-format agent's `model_config`. */
const HANDLED_OLDER_SETTINGS_KEYS = new Set(["model", "system_message", ...SETTINGS_KEYS]);
/** What Parley reads of a framework agent's `llm_config` entry. */
const HANDLED_LLM_KEYS = new Set(["api_type", "model", ...SETTINGS_KEYS]);

/**
 * What a framework agent's file holds that Parley does not use: the framework's own settings,
 * everything in its `llm_config` but the model, endpoint, key and generation settings, and the
 * fallback models after the first.
 */
function unusedFrameworkKeys(reader: Reader, backend: Path, framework: NonNullable<ReturnType<typeof frameworkModel>>): string[] {
  const unused: string[] = [];
  const holder = [...backend, framework.holder];
  const [entry, around] = framework.settingsAt;
  for (const key of reader.keys(backend)) if (key !== "type" && key !== framework.holder) unused.push(pathName([...backend, key]));
  for (const key of reader.keys(holder)) if (key !== "llm_config" && key !== "system_message") unused.push(pathName([...holder, key]));
  if (around)
    for (const key of reader.keys(around))
      if (key !== "config_list" && !SETTINGS_KEYS.includes(key)) unused.push(pathName([...around, key]));
  for (const key of reader.keys(entry!)) if (!HANDLED_LLM_KEYS.has(key)) unused.push(pathName([...entry!, key]));
  return [...unused, ...framework.fallbacks.map(pathName)];
}

/** Where an agent's parts are in its file: the current format, or the older one (`agent_id`, `agent_type`, `model_config`). */
interface AgentShape {
  older: boolean;
  id: Path;
  type: Path;
  model: Path;
  /** The mapping holding the model, endpoint, key, settings and tools. */
  backend: Path;
  systemMessages: Path[];
  handledAgentKeys: Set<string>;
}

const OLDER_FORMAT_HINT =
  "In the current format each agent has an `id` and a `backend` with `type` and `model` (for `agent_id: 1`, `agent_type: openai` and `model_config: {model: gpt-4o}`, write `id: agent_1` and `backend: {type: openai, model: gpt-4o}`), with its settings in `backend`.";
const OLDER_AGENT_KEYS = new Set(["agent_id", "agent_type", "model_config", "system_message"]);

function agentShape(reader: Reader, at: Path): AgentShape {
  const keys = reader.keys(at);
  const older =
    !keys.includes("id") && !keys.includes("backend") && ["agent_id", "agent_type", "model_config"].some((key) => keys.includes(key));
  if (!older) {
    return {
      older,
      id: [...at, "id"],
      type: [...at, "backend", "type"],
      model: [...at, "backend", "model"],
      backend: [...at, "backend"],
      systemMessages: [[...at, "system_message"]],
      handledAgentKeys: HANDLED_AGENT_KEYS,
    };
  }
  return {
    older,
    id: [...at, "agent_id"],
    type: [...at, "agent_type"],
    model: [...at, "model_config", "model"],
    backend: [...at, "model_config"],
    systemMessages: [
      [...at, "system_message"],
      [...at, "model_config", "system_message"],
    ],
    handledAgentKeys: OLDER_AGENT_KEYS,
  };
}

/** One agent of the file, as a persona of the room, with the custom tools it names. */
function readAgent(
  reader: Reader,
  doc: Document,
  at: Path,
  shape: AgentShape,
  index: number,
  context: { taken: Set<string>; ids: Set<string>; found: Findings; offline: boolean },
): { persona: PersonaTemplate; customTools: ListedCustomTool[] } {
  const { taken, ids, found } = context;
  const { notes, ignored } = found;
  const written = reader.optionalString(shape.id);
  if (!written?.trim()) reader.fail(shape.id, "is required");
  // The older format numbers its agents; a number alone makes a poor name on the roster.
  const id = shape.older && /^\d+$/.test(written.trim()) ? `agent_${written.trim()}` : written;
  if (id.length > MAX_AGENT_ID) reader.fail(shape.id, `is limited to ${MAX_AGENT_ID} characters`);
  if (ids.has(id)) reader.fail(shape.id, `"${id}" is used by another agent`);
  ids.add(id);
  if (!reader.isMapping(shape.backend)) {
    reader.fail(shape.backend, shape.older ? "is required: a mapping with `model`" : "is required: a mapping with `type` and `model`");
  }
  const type = reader.optionalString(shape.type);
  if (!type) reader.fail(shape.type, "is required");
  const normalized = type.toLowerCase();
  if (normalized === "a2a" && !shape.older) return { persona: readA2aAgent(reader, at, shape, index, id, context), customTools: [] };
  let provider: Provider;
  let model = reader.optionalString(shape.model);
  let adapterMessage: string | undefined;
  let framework: ReturnType<typeof frameworkModel> = null;
  if (FRAMEWORK_BACKENDS.has(normalized) && !shape.older) {
    const named = frameworkModel(resolvePath(plainDocument(doc), shape.backend), shape.backend);
    if (!named) {
      reader.fail(
        shape.type,
        `"${type}" is an agent framework; give its agent_config or group_config an llm_config with api_type and model`,
      );
    }
    provider = named.provider;
    model = named.model;
    adapterMessage = named.systemMessage;
    framework = named;
    notes.push(`${pathName(at)} (${type}) runs as one agent on ${provider}:${model}; its framework features are ignored.`);
  } else {
    const backend = ownValue(BACKEND_PROVIDERS, normalized);
    if (!backend) {
      reader.fail(
        shape.type,
        `unknown backend type "${type}". Known types: ${[...Object.keys(BACKEND_PROVIDERS), ...FRAMEWORK_BACKENDS, "a2a"].join(", ")}`,
      );
    }
    provider = backend.provider;
    if (!model) {
      model = backend.defaultModel;
      notes.push(`${pathName(shape.model)} was not set; using ${model}.`);
    }
  }
  const systemMessage = [
    shape.systemMessages.map((path) => reader.optionalString(path)).find(Boolean) ?? adapterMessage,
    shape.older ? undefined : reader.optionalString([...at, "append_system_prompt"]),
  ]
    .filter(Boolean)
    .join("\n\n");
  for (const key of reader.keys(at)) if (!shape.handledAgentKeys.has(key)) ignored.push(pathName([...at, key]));
  const tools: AgentTools =
    framework || context.offline ? { servers: [], customTools: [], handled: [] } : readAgentTools(reader, shape.backend, found);
  if (framework) ignored.push(...unusedFrameworkKeys(reader, shape.backend, framework));
  else {
    const handled = shape.older ? HANDLED_OLDER_SETTINGS_KEYS : HANDLED_BACKEND_KEYS;
    for (const key of reader.keys(shape.backend)) {
      if (!handled.has(key) && !tools.handled.includes(key)) ignored.push(pathName([...shape.backend, key]));
    }
  }
  const settingsAt = framework ? framework.settingsAt : [shape.backend];
  const modelOptions: ModelOptions = context.offline ? {} : readModelOptions(reader, settingsAt, normalized, provider, found);
  if (tools.servers.length) modelOptions.mcpServers = tools.servers;
  const persona = personaKey(id, taken);
  return {
    persona: {
      modelOptions,
      persona,
      name: id,
      role: `${normalized} · ${model}`,
      description: systemMessage ? systemMessage.replace(/\s+/g, " ").slice(0, 140) : `Runs ${model} (${normalized} backend).`,
      color: COLORS[index % COLORS.length]!,
      model: context.offline ? `script:${persona}` : `${provider}:${model}`,
      systemPrompt: systemMessage,
    },
    customTools: tools.customTools,
  };
}

const A2A_CARD_KEYS = ["agent_card_url", "url"] as const;

/**
 * An agent of another system named by its A2A agent card URL (`backend: {type: a2a,
 * agent_card_url: …}`), as the teammate `a2a:<card URL>`. The card URL is held to the rule of
 * the endpoints a file names: listed in PARLEY_IMPORT_ENDPOINTS, or named by an admin's import
 * and public. Its model, system prompt and tools are the remote agent's own.
 */
function readA2aAgent(
  reader: Reader,
  at: Path,
  shape: AgentShape,
  index: number,
  id: string,
  context: { taken: Set<string>; found: Findings; offline: boolean },
): PersonaTemplate {
  const { found } = context;
  const named = A2A_CARD_KEYS.filter((key) => reader.value([...shape.backend, key]) != null);
  if (named.length > 1) reader.fail([...shape.backend, named[1]!], "names the agent card a second time; give agent_card_url only");
  const cardAt: Path = [...shape.backend, named[0] ?? "agent_card_url"];
  const written = reader.optionalString(cardAt)?.trim();
  if (!written) reader.fail(cardAt, "is required: the address of the remote agent's A2A agent card");
  // The card URL is the agent's model, which everyone in the room sees: a variable's value would not stay on the server.
  if (ENV_REFERENCE.test(written))
    reader.fail(cardAt, "must be the card's address itself, not a variable: it is shown as the agent's model");
  // On the offline model the card is neither read nor reached, as endpoints are not.
  const card = context.offline ? { url: written, shown: written } : readEndpoint(reader, cardAt, found)!;
  if (!context.offline) {
    const standing = found.env.PARLEY_IMPORT_ENDPOINTS.some((prefix) => endpointUnder(card.url, prefix))
      ? "listed"
      : isPrivateAddress(new URL(card.url).hostname)
        ? "private"
        : "other";
    checkStanding(reader, cardAt, standing, card, found);
  }
  // Its prompt is the remote agent's own: a system message in the file has nowhere to go.
  for (const key of reader.keys(at)) if (key !== "id" && key !== "backend") found.ignored.push(pathName([...at, key]));
  for (const key of reader.keys(shape.backend)) {
    if (key !== "type" && !(A2A_CARD_KEYS as readonly string[]).includes(key)) found.ignored.push(pathName([...shape.backend, key]));
  }
  found.notes.push(`${pathName(at)} is the A2A agent at ${card.shown}: it answers with its own model, prompt and tools.`);
  const persona = personaKey(id, context.taken);
  return {
    modelOptions: {},
    persona,
    name: id,
    role: "a2a · remote agent",
    description: `An agent of another system, reached over A2A at ${card.shown}.`,
    color: COLORS[index % COLORS.length]!,
    model: context.offline ? `script:${persona}` : `a2a:${card.url}`,
    systemPrompt: "",
  };
}

/** A team's id in its file: long enough not to be guessed or hit by chance. */
const TEAM_ID = /^[A-Za-z0-9_-]{16,128}$/;

const HANDLED_COORDINATION_KEYS = new Set([
  "broadcast",
  "broadcast_timeout",
  "max_broadcasts_per_agent",
  "broadcast_sensitivity",
  "response_depth",
]);

/**
 * Reads a multi-agent configuration file (`agents:` with `id` and `backend`, an optional
 * `task:`, and `orchestrator.coordination` broadcast settings) into a room: its agents on
 * Parley's providers and its settings. Keys Parley does not use are accepted and listed.
 */
export function parseRoomConfig(text: string, options: ImportOptions = {}): ImportedConfig {
  const lines = new LineCounter();
  const doc = parseDocument(text, { lineCounter: lines, prettyErrors: true, uniqueKeys: true });
  if (doc.errors.length > 0) {
    const error = doc.errors[0]!;
    const line = error.linePos?.[0]?.line ?? null;
    const reason = error.message.split("\n")[0]!.replace(/ at line \d+, column \d+:?$/, "");
    throw new ConfigImportError(`The file is not valid YAML${line ? ` (line ${line})` : ""}: ${reason}`, null, line);
  }
  const reader: Reader = new Reader(doc, lines);
  if (!reader.isMapping([])) reader.fail([], "the file must be a mapping with an `agents:` list");

  const ignored: string[] = [];
  const notes: string[] = [];
  const hostsToResolve: ImportedConfig["hostsToResolve"] = [];
  const { admin = false, env = getEnv() } = options;
  const top = reader.keys([]);
  const agentsPath: Path = top.includes("agents") ? ["agents"] : top.includes("agent") ? ["agent"] : ["agents"];
  if (!top.includes("agents") && !top.includes("agent")) reader.fail(["agents"], "is required: list the agents to import");

  const single = agentsPath[0] === "agent";
  if (single && !reader.isMapping(agentsPath)) reader.fail(agentsPath, "must be a mapping with `id` and `backend`");
  if (!single && !reader.isList(agentsPath)) reader.fail(agentsPath, "must be a list of agents");
  const count = single ? 1 : reader.length(agentsPath);
  if (count === 0) reader.fail(agentsPath, "must list at least one agent");
  if (count > MAX_AGENTS) reader.fail(agentsPath, `lists ${count} agents; a room holds at most ${MAX_AGENTS}`);

  const taken = new Set<string>();
  const ids = new Set<string>();
  const agents: PersonaTemplate[] = [];
  const customTools: ImportedConfig["customTools"] = {};
  const found: Findings = { notes, ignored, hostsToResolve, admin, env, secrets: options.secrets ?? process.env };
  let olderAgents = 0;
  for (let index = 0; index < count; index++) {
    const at: Path = single ? agentsPath : [...agentsPath, index];
    if (!reader.isMapping(at)) reader.fail(at, "must be a mapping with `id` and `backend`");
    const shape = agentShape(reader, at);
    if (shape.older) olderAgents++;
    try {
      const agent = readAgent(reader, doc, at, shape, index, { taken, ids, found, offline: options.offline ?? false });
      agents.push(agent.persona);
      if (agent.customTools.length) customTools[agent.persona.persona] = agent.customTools;
    } catch (error) {
      throw shape.older && error instanceof ConfigImportError
        ? new ConfigImportError(
            `${error.message.replace(/\.?$/, ".")} This file is in the older format (agent_id, agent_type, model_config). ${OLDER_FORMAT_HINT}`,
            error.key,
            error.line,
          )
        : error;
    }
  }
  if (olderAgents) {
    notes.push(
      `This file is in the older format (agent_id, agent_type, model_config): its agents were read with their models, settings and system messages. ${OLDER_FORMAT_HINT}`,
    );
  }
  if (options.offline) {
    notes.push("Every agent runs on the offline script model; import without that option to use the configured providers.");
  }

  const settings: RoomSettingsPatch = {};
  const coordination: Path = ["orchestrator", "coordination"];
  if (top.includes("orchestrator")) {
    if (!reader.isMapping(["orchestrator"])) reader.fail(["orchestrator"], "must be a mapping");
    for (const key of reader.keys(["orchestrator"])) {
      if (key !== "coordination") ignored.push(pathName(["orchestrator", key]));
    }
    if (reader.keys(["orchestrator"]).includes("coordination")) {
      if (!reader.isMapping(coordination)) reader.fail(coordination, "must be a mapping");
      const broadcast = reader.value([...coordination, "broadcast"]);
      if (broadcast !== undefined && broadcast !== null) {
        if (broadcast === false || broadcast === "off" || broadcast === "false") settings.broadcast = "off";
        else if (broadcast === "agents" || broadcast === "human") settings.broadcast = broadcast;
        else reader.fail([...coordination, "broadcast"], `must be false, "agents" or "human", not ${JSON.stringify(broadcast)}`);
      }
      const timeout = reader.optionalInt([...coordination, "broadcast_timeout"], 1, 3600);
      if (timeout !== undefined) settings.broadcast_timeout = timeout;
      const limit = reader.optionalInt([...coordination, "max_broadcasts_per_agent"], 1, 100);
      if (limit !== undefined) settings.max_broadcasts_per_agent = limit;
      const sensitivity = reader.optionalChoice([...coordination, "broadcast_sensitivity"], ["low", "medium", "high"] as const);
      if (sensitivity) settings.broadcast_sensitivity = sensitivity;
      const depth = reader.optionalChoice([...coordination, "response_depth"], ["low", "medium", "high"] as const);
      if (depth) settings.response_depth = depth;
      for (const key of reader.keys(coordination)) {
        if (!HANDLED_COORDINATION_KEYS.has(key)) ignored.push(pathName([...coordination, key]));
      }
    }
  }
  // The older format's `task:` describes the kind of task (category, domain…), not the task itself.
  const describesTask = olderAgents > 0 && reader.isMapping(["task"]);
  if (describesTask) ignored.push("task");
  const task = describesTask ? "" : (reader.optionalString(["task"]) ?? "");
  if (task.length > 4000) reader.fail(["task"], "is longer than 4000 characters");
  if (task) settings.task = task;
  const teamId = reader.optionalString(["team_id"]) ?? null;
  if (teamId !== null && !TEAM_ID.test(teamId)) {
    reader.fail(
      ["team_id"],
      "must be 16 to 128 letters, digits, - or _. It is the key to the team's knowledge vaults: anyone who knows it shares them.",
    );
  }
  for (const key of top) if (!["agents", "agent", "orchestrator", "task", "team_id"].includes(key)) ignored.push(key);

  return { task, teamId, agents, settings, ignored, notes, hostsToResolve, customTools };
}
