import { createHash } from "node:crypto";
import { z } from "zod";
import type { Db } from "@/db";
import { randomToken } from "@/lib/auth/tokens";
import { type Env, getEnv } from "@/lib/env";
import { type AddressLookup, agentKeyVariable, hostAddressRefusal } from "@/lib/models/agent-endpoint";
import { generationSettings } from "@/lib/models/generation-settings";
import { parseModelSpec } from "@/lib/models/registry";
import { type McpServerStatus, connectMcpTools } from "@/lib/mcp-tools/connect-mcp-tools";
import { LIMITS } from "@/lib/protocol";
import { createRoom } from "./create-room";
import { ConfigImportError, parseRoomConfig } from "./import-config";
import type { ListedCustomTool } from "./import-tools";
import type { PersonaTemplate } from "./templates";

const IMPORTED_TEMPLATE = "imported";

export const importRoomInputSchema = z.strictObject({
  yaml: z
    .string()
    .min(1, "Paste or upload a configuration file")
    .max(256 * 1024, "Configuration files are limited to 256 KB"),
  title: z.string().trim().max(LIMITS.roomTitle).optional(),
  offline: z.boolean().default(false),
  /** The uploaded file's name: the room's title when the file has no task. */
  fileName: z.string().trim().max(200).optional(),
});
export type ImportRoomInput = z.input<typeof importRoomInputSchema>;

export interface ImportRoomOptions {
  /** An admin imports: agents may name endpoints that are not listed (never private ones). */
  admin?: boolean;
  env?: Env;
  /** Resolves the host names of endpoints an admin's import names (the system's resolver). */
  lookup?: AddressLookup;
  /** A fresh team id, for a file that names none. */
  newTeamId?: () => string;
  /** Where the variables a file names are read (the process environment). */
  secrets?: NodeJS.ProcessEnv;
  /** How long reaching each MCP server to list its tools may take (10 s). */
  mcpTimeoutMs?: number;
}

/** One of an agent's tool sources on the result: an MCP server (connected, with its tools, or why not) or a custom tool. */
type ImportedToolSource = McpServerStatus | { server: string; transport: "custom"; connected: false; tools: string[]; reason: string };

/**
 * What each agent's MCP servers offer it, as a run would find them now: each is reached (side
 * by side, within the time limit), its tools listed, and the connection closed again.
 */
async function probeTools(
  agents: PersonaTemplate[],
  customTools: Record<string, ListedCustomTool[]>,
  options: { env: Env; secrets?: NodeJS.ProcessEnv; timeoutMs: number },
): Promise<Map<string, ImportedToolSource[]>> {
  const probed = await Promise.all(
    agents.map(async (agent) => {
      const servers = agent.modelOptions?.mcpServers ?? [];
      const connected = servers.length ? await connectMcpTools(servers, options) : null;
      await connected?.close();
      const custom = (customTools[agent.persona] ?? []).map(
        (tool): ImportedToolSource => ({ server: tool.name, transport: "custom", connected: false, tools: [], reason: tool.reason }),
      );
      return [agent.persona, [...(connected?.status ?? []), ...custom]] as [string, ImportedToolSource[]];
    }),
  );
  return new Map(probed);
}

/**
 * Where an imported team's agents keep their knowledge: a namespace made from the team's id.
 * The id is the secret; the namespace, which shows in every identity, gives it away to nobody.
 */
export function teamNamespace(teamId: string): string {
  return createHash("sha256").update(`parley-team:${teamId}`).digest("hex").slice(0, 32);
}

/**
 * A title for a team whose file has no task and came without a name: its agents, as the file
 * names them ("planner, fetcher and checker"; "planner, fetcher, checker and 2 more"), so that
 * two such rooms can be told apart.
 */
function teamTitle(names: string[]): string {
  const shown = names.slice(0, names.length > 4 ? 3 : names.length);
  const rest = names.length - shown.length;
  const listed = rest
    ? `${shown.join(", ")} and ${rest} more`
    : shown.length > 1
      ? `${shown.slice(0, -1).join(", ")} and ${shown.at(-1)}`
      : (shown[0] ?? "");
  return listed.length > LIMITS.roomTitle ? `${listed.slice(0, LIMITS.roomTitle - 1).trimEnd()}…` : listed;
}

/**
 * Creates a room from a multi-agent configuration file; reports what it ignored. Its agents'
 * knowledge vaults belong to the file's `team_id`, or to a team id made for this import alone.
 */
export async function importRoom(db: Db, input: ImportRoomInput, options: ImportRoomOptions = {}) {
  const parsed = importRoomInputSchema.parse(input);
  const env = options.env ?? getEnv();
  const config = parseRoomConfig(parsed.yaml, { offline: parsed.offline, admin: options.admin ?? false, env, secrets: options.secrets });
  for (const host of config.hostsToResolve) {
    const refusal = await hostAddressRefusal(host.hostname, options.lookup);
    if (refusal)
      throw ConfigImportError.at(
        host.key,
        host.line,
        `${refusal}; list the endpoint in PARLEY_IMPORT_ENDPOINTS on the server to allow it.`,
      );
  }
  const tools = await probeTools(config.agents, config.customTools, {
    env,
    secrets: options.secrets,
    timeoutMs: options.mcpTimeoutMs ?? 10_000,
  });
  const teamId = config.teamId ?? (options.newTeamId ?? (() => randomToken(18)))();
  const firstLine = config.task
    .split("\n")
    .map((line) => line.trim())
    .find(Boolean);
  const fromFile = parsed.fileName
    ?.replace(/\.(ya?ml)$/i, "")
    .replace(/[_-]+/g, " ")
    .trim();
  const title =
    parsed.title ||
    firstLine?.slice(0, LIMITS.roomTitle).trim() ||
    fromFile?.slice(0, LIMITS.roomTitle) ||
    teamTitle(config.agents.map((agent) => agent.name));
  const { room, agents } = await createRoom(
    db,
    { title, template: IMPORTED_TEMPLATE },
    { agents: config.agents, settings: config.settings, identityPrefix: `${IMPORTED_TEMPLATE}/${teamNamespace(teamId)}` },
  );
  // Each agent with the generation settings it runs with and the key its calls carry, for the result to show.
  const withSettings = agents.map((agent) => {
    const modelOptions = config.agents.find((imported) => imported.persona === agent.persona)?.modelOptions ?? {};
    const spec = parseModelSpec(agent.model);
    const provider = "error" in spec ? "script" : spec.provider;
    return {
      ...agent,
      generation: generationSettings(modelOptions),
      key: provider === "script" || provider === "a2a" ? null : agentKeyVariable(provider, modelOptions, env),
      tools: tools.get(agent.persona) ?? [],
    };
  });
  return {
    room,
    agents: withSettings,
    team: { id: teamId, fromFile: config.teamId !== null },
    ignored: config.ignored,
    notes: config.notes,
    settings: config.settings,
  };
}
