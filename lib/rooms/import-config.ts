import { z } from "zod";
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
import {
  ConfigFile,
  ConfigImportError,
  type Path,
  optionalChoice,
  optionalNumber,
  optionalText,
  optionalTexts,
  optionalWholeNumber,
  pathName,
} from "./config-file";
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
const SETTING_SCHEMAS: Record<GenerationSetting, z.ZodType<GenerationSettings[GenerationSetting]>> = {
  temperature: optionalNumber(0, 2),
  topP: optionalNumber(0, 1),
  topK: optionalWholeNumber(1, 1000),
  maxOutputTokens: optionalWholeNumber(1, 1_000_000),
  frequencyPenalty: optionalNumber(-2, 2),
  presencePenalty: optionalNumber(-2, 2),
  stopSequences: optionalTexts(16),
  seed: optionalWholeNumber(0, Number.MAX_SAFE_INTEGER),
};
const GENERATION_KEYS = (Object.keys(SETTING_SCHEMAS) as GenerationSetting[]).map((setting) => ({
  key: SETTING_FILE_KEYS[setting],
  setting,
  schema: SETTING_SCHEMAS[setting],
}));

const SETTINGS_KEYS = ["base_url", "api_key", "api_key_env", ...GENERATION_KEYS.map((entry) => entry.key)];

/**
 * An agent's endpoint, key variable and generation settings, from its backend's keys (each
 * read from the first of `places` that has it) and the backend's defaults. A setting its
 * provider does not take is listed as ignored, with a note saying why. An endpoint or key
 * variable the server does not let imported teams name is refused (see agent-endpoint.ts).
 */
function readModelOptions(file: ConfigFile, places: Path[], backend: string, provider: Provider, found: Findings): ModelOptions {
  const { notes, env } = found;
  const where = (key: string): Path => {
    const place = places.find((candidate) => file.has([...candidate, key]));
    return [...(place ?? places[0]!), key];
  };
  const options: ModelOptions = {};
  const known = ownValue(BACKEND_PROVIDERS, backend);
  const endpointAt = where("base_url");
  const endpoint = readEndpoint(file, endpointAt, found);
  if (endpoint) {
    options.baseUrl = endpoint.url;
    if (endpoint.variable) options.baseUrlEnv = endpoint.variable;
    checkEndpoint(file, endpointAt, provider, endpoint, found);
  } else if (known?.baseUrl) {
    options.baseUrl = known.baseUrl;
  }

  const keyEnvAt = where("api_key_env");
  const keyAt = where("api_key");
  const keyEnv = file.read(keyEnvAt, optionalText);
  const key = file.read(keyAt, optionalText);
  let named: { name: string; at: Path } | null = null;
  if (keyEnv !== undefined) {
    if (!/^[A-Z_][A-Z0-9_]*$/.test(keyEnv)) file.fail(keyEnvAt, "must name an environment variable, such as GROQ_API_KEY");
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
    if (refusal) file.fail(named.at, refusal);
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
  for (const { key: name, setting, schema } of GENERATION_KEYS) {
    const path = where(name);
    const value = file.read(path, schema);
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
function checkEndpoint(file: ConfigFile, at: Path, provider: Provider, endpoint: NamedEndpoint, found: Findings): void {
  checkStanding(file, at, endpointStanding(provider, endpoint.url, found.env), endpoint, found);
}

/** Refuses a place an imported agent may not reach, given its standing (see `checkEndpoint`). */
function checkStanding(
  file: ConfigFile,
  at: Path,
  standing: ReturnType<typeof endpointStanding>,
  endpoint: NamedEndpoint,
  found: Findings,
): void {
  const { url, shown } = endpoint;
  if (standing === "private") {
    file.fail(
      at,
      `${shown} is on a loopback, link-local or private address; list it in PARLEY_IMPORT_ENDPOINTS on the server to allow it.`,
    );
  }
  if (standing !== "other") return;
  if (!found.admin) {
    file.fail(
      at,
      `${shown} is not an endpoint this server lets imported teams use; list it in PARLEY_IMPORT_ENDPOINTS on the server, or import the team signed in as admin.`,
    );
  }
  const hostname = new URL(url).hostname;
  if (!found.hostsToResolve.some((host) => host.hostname === hostname))
    found.hostsToResolve.push({ hostname, key: pathName(at), line: file.line(at) });
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
function unusedFrameworkKeys(file: ConfigFile, backend: Path, framework: NonNullable<ReturnType<typeof frameworkModel>>): string[] {
  const unused: string[] = [];
  const holder = [...backend, framework.holder];
  const [entry, around] = framework.settingsAt;
  for (const key of file.keys(backend)) if (key !== "type" && key !== framework.holder) unused.push(pathName([...backend, key]));
  for (const key of file.keys(holder)) if (key !== "llm_config" && key !== "system_message") unused.push(pathName([...holder, key]));
  if (around)
    for (const key of file.keys(around)) if (key !== "config_list" && !SETTINGS_KEYS.includes(key)) unused.push(pathName([...around, key]));
  for (const key of file.keys(entry!)) if (!HANDLED_LLM_KEYS.has(key)) unused.push(pathName([...entry!, key]));
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

function agentShape(file: ConfigFile, at: Path): AgentShape {
  const keys = file.keys(at);
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
  file: ConfigFile,
  at: Path,
  shape: AgentShape,
  index: number,
  context: { taken: Set<string>; ids: Set<string>; found: Findings; offline: boolean },
): { persona: PersonaTemplate; customTools: ListedCustomTool[] } {
  const { taken, ids, found } = context;
  const { notes, ignored } = found;
  const written = file.read(shape.id, optionalText);
  if (!written?.trim()) file.fail(shape.id, "is required");
  // The older format numbers its agents; a number alone makes a poor name on the roster.
  const id = shape.older && /^\d+$/.test(written.trim()) ? `agent_${written.trim()}` : written;
  if (id.length > MAX_AGENT_ID) file.fail(shape.id, `is limited to ${MAX_AGENT_ID} characters`);
  if (ids.has(id)) file.fail(shape.id, `"${id}" is used by another agent`);
  ids.add(id);
  if (!file.isMapping(shape.backend)) {
    file.fail(shape.backend, shape.older ? "is required: a mapping with `model`" : "is required: a mapping with `type` and `model`");
  }
  const type = file.read(shape.type, optionalText);
  if (!type) file.fail(shape.type, "is required");
  const normalized = type.toLowerCase();
  if (normalized === "a2a" && !shape.older) return { persona: readA2aAgent(file, at, shape, index, id, context), customTools: [] };
  let provider: Provider;
  let model = file.read(shape.model, optionalText);
  let adapterMessage: string | undefined;
  let framework: ReturnType<typeof frameworkModel> = null;
  if (FRAMEWORK_BACKENDS.has(normalized) && !shape.older) {
    const named = frameworkModel(file.value(shape.backend), shape.backend);
    if (!named) {
      file.fail(shape.type, `"${type}" is an agent framework; give its agent_config or group_config an llm_config with api_type and model`);
    }
    provider = named.provider;
    model = named.model;
    adapterMessage = named.systemMessage;
    framework = named;
    notes.push(`${pathName(at)} (${type}) runs as one agent on ${provider}:${model}; its framework features are ignored.`);
  } else {
    const backend = ownValue(BACKEND_PROVIDERS, normalized);
    if (!backend) {
      file.fail(
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
    shape.systemMessages.map((path) => file.read(path, optionalText)).find(Boolean) ?? adapterMessage,
    shape.older ? undefined : file.read([...at, "append_system_prompt"], optionalText),
  ]
    .filter(Boolean)
    .join("\n\n");
  for (const key of file.keys(at)) if (!shape.handledAgentKeys.has(key)) ignored.push(pathName([...at, key]));
  const tools: AgentTools =
    framework || context.offline ? { servers: [], customTools: [], handled: [] } : readAgentTools(file, shape.backend, found);
  if (framework) ignored.push(...unusedFrameworkKeys(file, shape.backend, framework));
  else {
    const handled = shape.older ? HANDLED_OLDER_SETTINGS_KEYS : HANDLED_BACKEND_KEYS;
    for (const key of file.keys(shape.backend)) {
      if (!handled.has(key) && !tools.handled.includes(key)) ignored.push(pathName([...shape.backend, key]));
    }
  }
  const settingsAt = framework ? framework.settingsAt : [shape.backend];
  const modelOptions: ModelOptions = context.offline ? {} : readModelOptions(file, settingsAt, normalized, provider, found);
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
  file: ConfigFile,
  at: Path,
  shape: AgentShape,
  index: number,
  id: string,
  context: { taken: Set<string>; found: Findings; offline: boolean },
): PersonaTemplate {
  const { found } = context;
  const named = A2A_CARD_KEYS.filter((key) => file.value([...shape.backend, key]) != null);
  if (named.length > 1) file.fail([...shape.backend, named[1]!], "names the agent card a second time; give agent_card_url only");
  const cardAt: Path = [...shape.backend, named[0] ?? "agent_card_url"];
  const written = file.read(cardAt, optionalText)?.trim();
  if (!written) file.fail(cardAt, "is required: the address of the remote agent's A2A agent card");
  // The card URL is the agent's model, which everyone in the room sees: a variable's value would not stay on the server.
  if (ENV_REFERENCE.test(written)) file.fail(cardAt, "must be the card's address itself, not a variable: it is shown as the agent's model");
  // On the offline model the card is neither read nor reached, as endpoints are not.
  const card = context.offline ? { url: written, shown: written } : readEndpoint(file, cardAt, found)!;
  if (!context.offline) {
    const standing = found.env.PARLEY_IMPORT_ENDPOINTS.some((prefix) => endpointUnder(card.url, prefix))
      ? "listed"
      : isPrivateAddress(new URL(card.url).hostname)
        ? "private"
        : "other";
    checkStanding(file, cardAt, standing, card, found);
  }
  // Its prompt is the remote agent's own: a system message in the file has nowhere to go.
  for (const key of file.keys(at)) if (key !== "id" && key !== "backend") found.ignored.push(pathName([...at, key]));
  for (const key of file.keys(shape.backend)) {
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

/** The file as a whole: a mapping, whose agents are read one by one. */
const fileSchema = z.looseObject({}, { error: "the file must be a mapping with an `agents:` list" });

const agentSchema = z.looseObject({}, { error: "must be a mapping with `id` and `backend`" });

const agentListSchema = z
  .array(agentSchema, {
    error: (issue) => (issue.input === undefined ? "is required: list the agents to import" : "must be a list of agents"),
  })
  .min(1, { error: "must list at least one agent" })
  .max(MAX_AGENTS, { error: (issue) => `lists ${(issue.input as unknown[]).length} agents; a room holds at most ${MAX_AGENTS}` });

/** `orchestrator.coordination`: how the room's agents broadcast, as room settings. */
const coordinationSchema = z.looseObject(
  {
    broadcast: z
      .union([z.literal(false), z.enum(["off", "false", "agents", "human"])], {
        error: (issue) => `must be false, "agents" or "human", not ${JSON.stringify(issue.input)}`,
      })
      .transform((mode) => (mode === false || mode === "false" ? "off" : mode))
      .nullish(),
    broadcast_timeout: optionalWholeNumber(1, 3600),
    max_broadcasts_per_agent: optionalWholeNumber(1, 100),
    broadcast_sensitivity: optionalChoice(["low", "medium", "high"]),
    response_depth: optionalChoice(["low", "medium", "high"]),
  },
  { error: "must be a mapping" },
);

const HANDLED_COORDINATION_KEYS = new Set(Object.keys(coordinationSchema.shape));

const orchestratorSchema = z.looseObject({ coordination: coordinationSchema.optional() }, { error: "must be a mapping" });

const taskSchema = optionalText.refine((task) => task === undefined || task.length <= 4000, { error: "is longer than 4000 characters" });

const teamIdSchema = optionalText.refine((id) => id === undefined || TEAM_ID.test(id), {
  error: "must be 16 to 128 letters, digits, - or _. It is the key to the team's knowledge vaults: anyone who knows it shares them.",
});

/**
 * Reads a multi-agent configuration file (`agents:` with `id` and `backend`, an optional
 * `task:`, and `orchestrator.coordination` broadcast settings) into a room: its agents on
 * Parley's providers and its settings. Keys Parley does not use are accepted and listed.
 */
export function parseRoomConfig(text: string, options: ImportOptions = {}): ImportedConfig {
  const file = ConfigFile.parse(text);
  file.read([], fileSchema);

  const ignored: string[] = [];
  const notes: string[] = [];
  const hostsToResolve: ImportedConfig["hostsToResolve"] = [];
  const { admin = false, env = getEnv() } = options;
  const top = file.keys([]);
  const single = !top.includes("agents") && top.includes("agent");
  const agentsPath: Path = single ? ["agent"] : ["agents"];
  if (single) file.read(agentsPath, agentSchema);
  const count = single ? 1 : file.read(agentsPath, agentListSchema).length;

  const taken = new Set<string>();
  const ids = new Set<string>();
  const agents: PersonaTemplate[] = [];
  const customTools: ImportedConfig["customTools"] = {};
  const found: Findings = { notes, ignored, hostsToResolve, admin, env, secrets: options.secrets ?? process.env };
  let olderAgents = 0;
  for (let index = 0; index < count; index++) {
    const at: Path = single ? agentsPath : [...agentsPath, index];
    const shape = agentShape(file, at);
    if (shape.older) olderAgents++;
    try {
      const agent = readAgent(file, at, shape, index, { taken, ids, found, offline: options.offline ?? false });
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
    const { coordination: read } = file.read(["orchestrator"], orchestratorSchema);
    for (const key of file.keys(["orchestrator"])) {
      if (key !== "coordination") ignored.push(pathName(["orchestrator", key]));
    }
    if (read?.broadcast) settings.broadcast = read.broadcast;
    if (read?.broadcast_timeout !== undefined) settings.broadcast_timeout = read.broadcast_timeout;
    if (read?.max_broadcasts_per_agent !== undefined) settings.max_broadcasts_per_agent = read.max_broadcasts_per_agent;
    if (read?.broadcast_sensitivity) settings.broadcast_sensitivity = read.broadcast_sensitivity;
    if (read?.response_depth) settings.response_depth = read.response_depth;
    for (const key of file.keys(coordination)) {
      if (!HANDLED_COORDINATION_KEYS.has(key)) ignored.push(pathName([...coordination, key]));
    }
  }
  // The older format's `task:` describes the kind of task (category, domain…), not the task itself.
  const describesTask = olderAgents > 0 && file.isMapping(["task"]);
  if (describesTask) ignored.push("task");
  const task = describesTask ? "" : (file.read(["task"], taskSchema) ?? "");
  if (task) settings.task = task;
  const teamId = file.read(["team_id"], teamIdSchema) ?? null;
  for (const key of top) if (!["agents", "agent", "orchestrator", "task", "team_id"].includes(key)) ignored.push(key);

  return { task, teamId, agents, settings, ignored, notes, hostsToResolve, customTools };
}
