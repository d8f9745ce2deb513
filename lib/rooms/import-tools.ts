import { z } from "zod";
import type { AgentMcpServer } from "@/db/schema";
import { VARIABLE_IN_TEXT, mcpEndpointStanding } from "@/lib/mcp-tools/mcp-server-access";
import { type ConfigFile, type Path, optionalText, pathName } from "./config-file";
import { ENV_REFERENCE, type Findings, readEndpoint, variableRefusal } from "./import-endpoint";

/**
 * An agent's tools as its team's file gives them: MCP servers (`mcp_servers`, a list of
 * servers with a `name`, or a mapping by name) become tools it calls beside Parley's own;
 * custom tools (functions in the other system's own language) are listed, not run.
 */

/** A custom tool a file names, which Parley cannot run, and why. */
export interface ListedCustomTool {
  name: string;
  reason: string;
}

export interface AgentTools {
  servers: AgentMcpServer[];
  customTools: ListedCustomTool[];
  /** The backend's keys read here, so that they are not listed as ignored. */
  handled: string[];
}

/** More servers than this for one agent is a file to split, not one to run. */
const MAX_SERVERS = 8;
const SERVER_NAME = /^[A-Za-z0-9_.-]{1,40}$/;
const HANDLED_SERVER_KEYS = new Set(["name", "type", "transport", "url", "headers", "command", "args", "env"]);
const TRANSPORTS: Record<string, AgentMcpServer["transport"]> = {
  stdio: "stdio",
  "streamable-http": "streamable-http",
  streamable_http: "streamable-http",
  http: "streamable-http",
  sse: "sse",
};

/** A local server's arguments: texts (a number written bare is read as its text). */
const argsSchema = z
  .array(z.union([z.string(), z.number()], { error: "must be a list of texts" }).transform(String), { error: "must be a list of texts" })
  .nullish();

const textMapSchema = z.record(z.string(), z.unknown(), { error: "must be a mapping of names to values" }).nullish();

/**
 * A header's or environment entry's value: the variables it names must be ones the operator
 * lets imported teams read; a value naming none is returned as it is.
 */
function readVariableText(file: ConfigFile, at: Path, found: Findings): string {
  const value = file.read(at, optionalText) ?? "";
  for (const match of value.matchAll(VARIABLE_IN_TEXT)) {
    const refusal = variableRefusal(match[1]!, found.env);
    if (refusal) file.fail(at, refusal);
  }
  // `$NAME` alone is the same reference as `${NAME}`.
  const bare = value.trim().match(ENV_REFERENCE);
  if (bare && !value.includes("{")) {
    const refusal = variableRefusal(bare[1]!, found.env);
    if (refusal) file.fail(at, refusal);
    return `\${${bare[1]}}`;
  }
  return value;
}

/** A text mapping (`headers:`, `env:`), each value read by `readVariableText`. */
function readTextMap(file: ConfigFile, at: Path, found: Findings): Record<string, string> {
  if (!file.read(at, textMapSchema)) return {};
  return Object.fromEntries(file.keys(at).map((key) => [key, readVariableText(file, [...at, key], found)]));
}

/** The MCP tools `allowed_tools` / `exclude_tools` name for one server (`mcp__<server>__<tool>`), by the server's tool names. */
function toolChoice(file: ConfigFile, backend: Path, key: string, server: string): string[] | undefined {
  const listed = file.value([...backend, key]);
  if (!Array.isArray(listed)) return undefined;
  const prefix = `mcp__${server}__`;
  const tools = listed.filter((entry): entry is string => typeof entry === "string" && entry.startsWith(prefix));
  return tools.length ? tools.map((entry) => entry.slice(prefix.length)) : undefined;
}

function readServer(file: ConfigFile, at: Path, name: string, backend: Path, found: Findings): AgentMcpServer {
  if (!file.isMapping(at)) file.fail(at, "must be a mapping with a type and a url or command");
  if (!SERVER_NAME.test(name)) file.fail(at, `the server's name "${name}" must be 1 to 40 letters, digits, ".", "-" or "_"`);
  const written = (file.read([...at, "type"], optionalText) ?? file.read([...at, "transport"], optionalText))?.toLowerCase();
  const transport = written
    ? TRANSPORTS[written]
    : file.value([...at, "command"]) !== undefined
      ? "stdio"
      : file.value([...at, "url"]) !== undefined
        ? "streamable-http"
        : undefined;
  if (!transport) {
    file.fail(
      [...at, written ? "type" : "url"],
      written
        ? `must be "stdio", "streamable-http" or "sse", not ${JSON.stringify(written)}`
        : "is required: the server's address, or a command",
    );
  }
  for (const key of file.keys(at)) if (!HANDLED_SERVER_KEYS.has(key)) found.ignored.push(pathName([...at, key]));
  const choice = {
    name,
    importedByAdmin: found.admin,
    ...(toolChoice(file, backend, "allowed_tools", name) ? { allowedTools: toolChoice(file, backend, "allowed_tools", name) } : {}),
    ...(toolChoice(file, backend, "exclude_tools", name) ? { excludedTools: toolChoice(file, backend, "exclude_tools", name) } : {}),
  };
  if (transport === "stdio") {
    const command = file.read([...at, "command"], optionalText);
    if (!command?.trim()) file.fail([...at, "command"], "is required for a server started as a local command");
    const args = file.read([...at, "args"], argsSchema) ?? [];
    const env = readTextMap(file, [...at, "env"], found);
    return { ...choice, transport, command: command.trim(), args, ...(Object.keys(env).length ? { env } : {}) };
  }
  const endpoint = readEndpoint(file, [...at, "url"], found);
  if (!endpoint) file.fail([...at, "url"], "is required for a server reached over HTTP");
  // A name an admin's import reaches must resolve to public addresses only, as for a model's endpoint.
  if (found.admin && mcpEndpointStanding(endpoint.url, found.env) === "other") {
    const hostname = new URL(endpoint.url).hostname;
    if (!found.hostsToResolve.some((host) => host.hostname === hostname))
      found.hostsToResolve.push({ hostname, key: pathName([...at, "url"]), line: file.line([...at, "url"]) });
  }
  const headers = readTextMap(file, [...at, "headers"], found);
  for (const [header, value] of Object.entries(headers)) {
    if (value.match(VARIABLE_IN_TEXT)) continue;
    delete headers[header];
    found.notes.push(
      `${pathName([...at, "headers", header])}: a value written in the file is not used; write it as \${VARIABLE} naming the variable that holds it.`,
    );
  }
  return { ...choice, transport, url: endpoint.url, ...(Object.keys(headers).length ? { headers } : {}) };
}

/** The custom tools of a backend, each listed with why it does not run here. */
function readCustomTools(file: ConfigFile, at: Path): ListedCustomTool[] {
  const listed: ListedCustomTool[] = [];
  for (let index = 0; index < file.length(at); index++) {
    const entry = file.value([...at, index]) as { name?: unknown; function?: unknown; path?: unknown } | null;
    const named = entry?.name ?? entry?.function;
    const names = (Array.isArray(named) ? named : [named]).filter((name): name is string => typeof name === "string");
    const where = typeof entry?.path === "string" ? ` in ${entry.path}` : "";
    for (const name of names) {
      if (listed.some((tool) => tool.name === name)) continue;
      listed.push({
        name,
        reason: `a function${where} of the system the file was written for, which Parley cannot run; serve it from an MCP server to give it to this agent.`,
      });
    }
  }
  return listed;
}

/** An agent's MCP servers and custom tools, from its backend at `backend`. */
export function readAgentTools(file: ConfigFile, backend: Path, found: Findings): AgentTools {
  const servers: AgentMcpServer[] = [];
  const handled: string[] = [];
  const at: Path = [...backend, "mcp_servers"];
  if (file.value(at) !== undefined && file.value(at) !== null) {
    handled.push("mcp_servers");
    const entries: [Path, string][] = file.isList(at)
      ? Array.from({ length: file.length(at) }, (_, index): [Path, string] => [
          [...at, index],
          file.read([...at, index, "name"], optionalText) ?? file.fail([...at, index, "name"], "is required: the server's name"),
        ])
      : file.isMapping(at)
        ? file.keys(at).map((name): [Path, string] => [[...at, name], name])
        : file.fail(at, "must be a list of servers, or a mapping of names to servers");
    if (entries.length > MAX_SERVERS) file.fail(at, `lists ${entries.length} servers; an agent may have at most ${MAX_SERVERS}`);
    for (const [path, name] of entries) {
      if (servers.some((server) => server.name === name)) file.fail(path, `"${name}" names another server of this agent`);
      servers.push(readServer(file, path, name, backend, found));
    }
    const filters = ["allowed_tools", "exclude_tools"].filter((key) =>
      servers.some((server) => toolChoice(file, backend, key, server.name) !== undefined),
    );
    handled.push(...filters);
  }
  const customAt: Path = [...backend, "custom_tools"];
  const customTools = file.isList(customAt) ? readCustomTools(file, customAt) : [];
  if (file.isList(customAt)) handled.push("custom_tools");
  return { servers, customTools, handled };
}
