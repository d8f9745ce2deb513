import { lookup } from "node:dns/promises";
import { BlockList, isIP } from "node:net";
import type { AgentModelOptions } from "@/db/schema";
import type { Env } from "@/lib/env";
import { endpointUnder, sameEndpoint } from "./endpoint-address";
import type { ProviderName } from "./registry";

/**
 * Where an agent's calls may go and which key may go with them. An agent may name its own
 * endpoint and key variable (an imported team's file does); the server's own keys never follow
 * it there, and the variables and endpoints it may name are the operator's to list.
 */

export type KeyedProvider = Exclude<ProviderName, "script" | "a2a">;

/**
 * Hosted OpenAI-compatible services Parley knows: their endpoint, the variable their key is
 * usually kept in, and the host names their documentation gives (an agent calling any https
 * endpoint on one of them calls that service, whatever path it names).
 */
export const HOSTED_SERVICES = {
  grok: { label: "xAI", baseUrl: "https://api.x.ai/v1", keyEnv: "XAI_API_KEY", hosts: ["api.x.ai"] },
  zai: { label: "Z.ai", baseUrl: "https://api.z.ai/api/paas/v4", keyEnv: "ZAI_API_KEY", hosts: ["api.z.ai"] },
  cerebras: { label: "Cerebras", baseUrl: "https://api.cerebras.ai/v1", keyEnv: "CEREBRAS_API_KEY", hosts: ["api.cerebras.ai"] },
  together: {
    label: "Together AI",
    baseUrl: "https://api.together.xyz/v1",
    keyEnv: "TOGETHER_API_KEY",
    hosts: ["api.together.xyz", "api.together.ai"],
  },
  fireworks: {
    label: "Fireworks AI",
    baseUrl: "https://api.fireworks.ai/inference/v1",
    keyEnv: "FIREWORKS_API_KEY",
    hosts: ["api.fireworks.ai"],
  },
  groq: { label: "Groq", baseUrl: "https://api.groq.com/openai/v1", keyEnv: "GROQ_API_KEY", hosts: ["api.groq.com"] },
  openrouter: { label: "OpenRouter", baseUrl: "https://openrouter.ai/api/v1", keyEnv: "OPENROUTER_API_KEY", hosts: ["openrouter.ai"] },
  moonshot: {
    label: "Moonshot AI",
    baseUrl: "https://api.moonshot.ai/v1",
    keyEnv: "MOONSHOT_API_KEY",
    hosts: ["api.moonshot.ai", "api.moonshot.cn"],
  },
  nebius: {
    label: "Nebius AI Studio",
    baseUrl: "https://api.studio.nebius.com/v1",
    keyEnv: "NEBIUS_API_KEY",
    hosts: ["api.studio.nebius.com", "api.studio.nebius.ai", "api.tokenfactory.nebius.com"],
  },
  poe: { label: "Poe", baseUrl: "https://api.poe.com/v1", keyEnv: "POE_API_KEY", hosts: ["api.poe.com"] },
  qwen: {
    label: "DashScope (Qwen)",
    baseUrl: "https://dashscope-intl.aliyuncs.com/compatible-mode/v1",
    keyEnv: "DASHSCOPE_API_KEY",
    hosts: ["dashscope-intl.aliyuncs.com", "dashscope.aliyuncs.com"],
  },
} satisfies Record<string, HostedService>;

export interface HostedService {
  /** The service's name as people know it. */
  label: string;
  baseUrl: string;
  keyEnv: string;
  hosts: string[];
}

/** The known hosted service an endpoint belongs to: https on one of its host names, on the default port. */
export function hostedServiceAt(baseUrl: string | undefined): HostedService | undefined {
  if (!baseUrl) return undefined;
  let url: URL;
  try {
    url = new URL(baseUrl);
  } catch {
    return undefined;
  }
  if (url.protocol !== "https:" || url.port) return undefined;
  const host = url.hostname.toLowerCase().replace(/\.$/, "");
  return Object.values(HOSTED_SERVICES).find((service: HostedService) => service.hosts.includes(host));
}

/**
 * An agent's endpoint as people are shown it: the file's `${NAME}` when the endpoint was read
 * from a variable (its value stays on the server), else the address itself.
 */
export function shownEndpoint(options: Pick<AgentModelOptions, "baseUrl" | "baseUrlEnv">): string | undefined {
  return options.baseUrlEnv ? `\${${options.baseUrlEnv}}` : options.baseUrl;
}

type ServerKeyVariable = "OPENAI_API_KEY" | "ANTHROPIC_API_KEY" | "GOOGLE_GENERATIVE_AI_API_KEY" | "OPENAI_COMPATIBLE_API_KEY";

/** Each provider's server-wide key, and the endpoint it belongs to: the server's setting, else where the provider's client calls. */
const SERVER_KEYS: Record<KeyedProvider, { variable: ServerKeyVariable; endpoint: (env: Env) => string | undefined }> = {
  openai: { variable: "OPENAI_API_KEY", endpoint: (env) => env.OPENAI_BASE_URL ?? "https://api.openai.com/v1" },
  anthropic: { variable: "ANTHROPIC_API_KEY", endpoint: (env) => env.ANTHROPIC_BASE_URL ?? "https://api.anthropic.com/v1" },
  google: {
    variable: "GOOGLE_GENERATIVE_AI_API_KEY",
    endpoint: (env) => env.GOOGLE_BASE_URL ?? "https://generativelanguage.googleapis.com/v1beta",
  },
  "openai-compatible": { variable: "OPENAI_COMPATIBLE_API_KEY", endpoint: (env) => env.OPENAI_COMPATIBLE_BASE_URL },
};

export function serverKeyVariable(provider: KeyedProvider): ServerKeyVariable {
  return SERVER_KEYS[provider].variable;
}

/**
 * Whether an agent calls its provider's server-wide endpoint (it names none, or names that one):
 * only then may the server's key go with its calls.
 */
export function callsServerEndpoint(provider: KeyedProvider, options: AgentModelOptions, env: Env): boolean {
  return !options.baseUrl || sameEndpoint(options.baseUrl, SERVER_KEYS[provider].endpoint(env));
}

/** The key variable of the known hosted service this endpoint belongs to. */
function hostedKeyVariable(baseUrl: string | undefined): string | undefined {
  return hostedServiceAt(baseUrl)?.keyEnv;
}

/**
 * The variable an agent's key is read from: the one its configuration names, else, when it
 * calls a known hosted service's endpoint (and not the server's own), that service's variable,
 * as a backend named after the service would use. Null: the server's key, or none.
 */
export function ownKeyVariable(provider: KeyedProvider, options: AgentModelOptions, env: Env): string | null {
  if (options.apiKeyEnv) return options.apiKeyEnv;
  if (callsServerEndpoint(provider, options, env)) return null;
  return hostedKeyVariable(options.baseUrl) ?? null;
}

/**
 * Why an agent may not have its key read from this variable for this endpoint, or null when it
 * may: the operator listed it, or it is a known hosted service's own variable and the agent calls
 * that service. No other variable of the server's environment is ever read for an agent.
 */
export function keyVariableRefusal(name: string, baseUrl: string | undefined, env: Env): string | null {
  if (env.PARLEY_IMPORT_KEY_VARIABLES.includes(name)) return null;
  if (hostedKeyVariable(baseUrl) === name) return null;
  return `${name} is not a key variable this server lets agents use; list it in PARLEY_IMPORT_KEY_VARIABLES on the server to allow it.`;
}

/**
 * How far an endpoint an agent names is trusted: the server's own for the provider, a known
 * hosted service's, one the operator listed, one on a private address, or any other.
 */
export type EndpointStanding = "server" | "hosted" | "listed" | "private" | "other";

export function endpointStanding(provider: KeyedProvider, baseUrl: string, env: Env): EndpointStanding {
  if (sameEndpoint(baseUrl, SERVER_KEYS[provider].endpoint(env))) return "server";
  if (hostedKeyVariable(baseUrl)) return "hosted";
  if (env.PARLEY_IMPORT_ENDPOINTS.some((prefix) => endpointUnder(baseUrl, prefix))) return "listed";
  return isPrivateAddress(new URL(baseUrl).hostname) ? "private" : "other";
}

/** Loopback, link-local, private, shared, multicast and reserved ranges: nothing an agent may reach unless listed. */
const PRIVATE_RANGES = new BlockList();
for (const [network, prefix] of [
  ["0.0.0.0", 8],
  ["10.0.0.0", 8],
  ["100.64.0.0", 10],
  ["127.0.0.0", 8],
  ["169.254.0.0", 16],
  ["172.16.0.0", 12],
  ["192.0.0.0", 24],
  ["192.168.0.0", 16],
  ["198.18.0.0", 15],
  ["224.0.0.0", 4],
  ["240.0.0.0", 4],
] as const) {
  PRIVATE_RANGES.addSubnet(network, prefix, "ipv4");
}
// IPv4-mapped IPv6 addresses (::ffff:127.0.0.1) are checked against the IPv4 ranges by BlockList itself.
for (const [network, prefix] of [
  ["::", 96],
  ["fc00::", 7],
  ["fe80::", 10],
  ["fec0::", 10],
  ["ff00::", 8],
] as const) {
  PRIVATE_RANGES.addSubnet(network, prefix, "ipv6");
}

/**
 * Whether a host as a URL writes it — an address, or `localhost` — is loopback, link-local,
 * private or otherwise not a public host. Other names are looked up by `hostAddressRefusal`.
 */
export function isPrivateAddress(address: string): boolean {
  const host = address
    .replace(/^\[|\]$/g, "")
    .replace(/\.$/, "")
    .toLowerCase();
  if (host === "localhost" || host.endsWith(".localhost")) return true;
  const family = isIP(host);
  return family !== 0 && PRIVATE_RANGES.check(host, family === 4 ? "ipv4" : "ipv6");
}

export type AddressLookup = (hostname: string) => Promise<{ address: string }[]>;

const systemLookup: AddressLookup = (hostname) => lookup(hostname, { all: true });
const LOOKUP_TIMEOUT_MS = 5000;

/**
 * Why a named host may not be called, or null: every address it resolves to must be public. A
 * name that does not resolve (in 5 s) is refused too. Checked when a team is imported; a name
 * that later resolves elsewhere is the operator's to block at the network.
 */
export async function hostAddressRefusal(hostname: string, resolve: AddressLookup = systemLookup): Promise<string | null> {
  if (isIP(hostname.replace(/^\[|\]$/g, "")) !== 0) return null;
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<null>((done) => {
    timer = setTimeout(() => done(null), LOOKUP_TIMEOUT_MS);
  });
  const addresses = await Promise.race([resolve(hostname).catch(() => null), timeout]).finally(() => clearTimeout(timer));
  if (!addresses || addresses.length === 0) return `${hostname} could not be resolved`;
  const inside = addresses.find((entry) => isPrivateAddress(entry.address));
  return inside ? `${hostname} resolves to ${inside.address}, a loopback, link-local or private address` : null;
}

/**
 * The variables holding a key that a room's agents could spend on, among those set on this
 * server: each provider's server-wide key, the variables the operator lets imported teams name,
 * and the known hosted services' own variables (a team calling that service may name its
 * variable without the operator listing it; see `keyVariableRefusal`).
 */
export function spendableKeyVariables(env: Env, secrets: NodeJS.ProcessEnv): string[] {
  const server = Object.values(SERVER_KEYS)
    .map((key) => key.variable)
    .filter((variable) => env[variable]);
  const named = [...env.PARLEY_IMPORT_KEY_VARIABLES, ...Object.values(HOSTED_SERVICES).map((service) => service.keyEnv)].filter(
    (variable) => secrets[variable],
  );
  return [...new Set([...server, ...named])];
}

/** The key an agent's calls carry: its own variable, the server's, or none. */
export function agentKeyVariable(
  provider: KeyedProvider,
  options: AgentModelOptions,
  env: Env,
): { variable: string; server: boolean } | null {
  const own = ownKeyVariable(provider, options, env);
  if (own) return { variable: own, server: false };
  if (callsServerEndpoint(provider, options, env)) return { variable: SERVER_KEYS[provider].variable, server: true };
  return null;
}
