import type { AgentMcpServer } from "@/db/schema";
import { VARIABLE_IN_TEXT, mcpEndpointStanding } from "@/lib/mcp-tools/mcp-server-access";
import { type Path, type Reader, pathName } from "./config-reader";
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

/**
 * A header's or environment entry's value: the variables it names must be ones the operator
 * lets imported teams read; a value naming none is returned as it is.
 */
function readVariableText(reader: Reader, at: Path, found: Findings): string {
  const value = reader.optionalString(at) ?? "";
  for (const match of value.matchAll(VARIABLE_IN_TEXT)) {
    const refusal = variableRefusal(match[1]!, found.env);
    if (refusal) reader.fail(at, refusal);
  }
  // `$NAME` alone is the same reference as `${NAME}`.
  const bare = value.trim().match(ENV_REFERENCE);
  if (bare && !value.includes("{")) {
    const refusal = variableRefusal(bare[1]!, found.env);
    if (refusal) reader.fail(at, refusal);
    return `\${${bare[1]}}`;
  }
  return value;
}

/** A text mapping (`headers:`, `env:`), each value read by `readVariableText`. */
function readTextMap(reader: Reader, at: Path, found: Findings): Record<string, string> {
  if (reader.value(at) === undefined || reader.value(at) === null) return {};
  if (!reader.isMapping(at)) reader.fail(at, "must be a mapping of names to values");
  return Object.fromEntries(reader.keys(at).map((key) => [key, readVariableText(reader, [...at, key], found)]));
}

/** The MCP tools `allowed_tools` / `exclude_tools` name for one server (`mcp__<server>__<tool>`), by the server's tool names. */
function toolChoice(reader: Reader, backend: Path, key: string, server: string): string[] | undefined {
  const listed = reader.plain([...backend, key]);
  if (!Array.isArray(listed)) return undefined;
  const prefix = `mcp__${server}__`;
  const tools = listed.filter((entry): entry is string => typeof entry === "string" && entry.startsWith(prefix));
  return tools.length ? tools.map((entry) => entry.slice(prefix.length)) : undefined;
}

function readServer(reader: Reader, at: Path, name: string, backend: Path, found: Findings): AgentMcpServer {
  if (!reader.isMapping(at)) reader.fail(at, "must be a mapping with a type and a url or command");
  if (!SERVER_NAME.test(name)) reader.fail(at, `the server's name "${name}" must be 1 to 40 letters, digits, ".", "-" or "_"`);
  const written = (reader.optionalString([...at, "type"]) ?? reader.optionalString([...at, "transport"]))?.toLowerCase();
  const transport = written
    ? TRANSPORTS[written]
    : reader.value([...at, "command"]) !== undefined
      ? "stdio"
      : reader.value([...at, "url"]) !== undefined
        ? "streamable-http"
        : undefined;
  if (!transport) {
    reader.fail(
      [...at, written ? "type" : "url"],
      written
        ? `must be "stdio", "streamable-http" or "sse", not ${JSON.stringify(written)}`
        : "is required: the server's address, or a command",
    );
  }
  for (const key of reader.keys(at)) if (!HANDLED_SERVER_KEYS.has(key)) found.ignored.push(pathName([...at, key]));
  const choice = {
    name,
    importedByAdmin: found.admin,
    ...(toolChoice(reader, backend, "allowed_tools", name) ? { allowedTools: toolChoice(reader, backend, "allowed_tools", name) } : {}),
    ...(toolChoice(reader, backend, "exclude_tools", name) ? { excludedTools: toolChoice(reader, backend, "exclude_tools", name) } : {}),
  };
  if (transport === "stdio") {
    const command = reader.optionalString([...at, "command"]);
    if (!command?.trim()) reader.fail([...at, "command"], "is required for a server started as a local command");
    const args = reader.plain([...at, "args"]) ?? [];
    if (!Array.isArray(args) || !args.every((arg) => typeof arg === "string" || typeof arg === "number")) {
      reader.fail([...at, "args"], "must be a list of texts");
    }
    const env = readTextMap(reader, [...at, "env"], found);
    return { ...choice, transport, command: command.trim(), args: args.map(String), ...(Object.keys(env).length ? { env } : {}) };
  }
  const endpoint = readEndpoint(reader, [...at, "url"], found);
  if (!endpoint) reader.fail([...at, "url"], "is required for a server reached over HTTP");
  // A name an admin's import reaches must resolve to public addresses only, as for a model's endpoint.
  if (found.admin && mcpEndpointStanding(endpoint.url, found.env) === "other") {
    const hostname = new URL(endpoint.url).hostname;
    if (!found.hostsToResolve.some((host) => host.hostname === hostname))
      found.hostsToResolve.push({ hostname, key: pathName([...at, "url"]), line: reader.line([...at, "url"]) });
  }
  const headers = readTextMap(reader, [...at, "headers"], found);
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
function readCustomTools(reader: Reader, at: Path): ListedCustomTool[] {
  const listed: ListedCustomTool[] = [];
  for (let index = 0; index < reader.length(at); index++) {
    const entry = reader.plain([...at, index]) as { name?: unknown; function?: unknown; path?: unknown } | null;
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
export function readAgentTools(reader: Reader, backend: Path, found: Findings): AgentTools {
  const servers: AgentMcpServer[] = [];
  const handled: string[] = [];
  const at: Path = [...backend, "mcp_servers"];
  if (reader.value(at) !== undefined && reader.value(at) !== null) {
    handled.push("mcp_servers");
    const entries: [Path, string][] = reader.isList(at)
      ? Array.from({ length: reader.length(at) }, (_, index): [Path, string] => [
          [...at, index],
          reader.optionalString([...at, index, "name"]) ?? reader.fail([...at, index, "name"], "is required: the server's name"),
        ])
      : reader.isMapping(at)
        ? reader.keys(at).map((name): [Path, string] => [[...at, name], name])
        : reader.fail(at, "must be a list of servers, or a mapping of names to servers");
    if (entries.length > MAX_SERVERS) reader.fail(at, `lists ${entries.length} servers; an agent may have at most ${MAX_SERVERS}`);
    for (const [path, name] of entries) {
      if (servers.some((server) => server.name === name)) reader.fail(path, `"${name}" names another server of this agent`);
      servers.push(readServer(reader, path, name, backend, found));
    }
    const filters = ["allowed_tools", "exclude_tools"].filter((key) =>
      servers.some((server) => toolChoice(reader, backend, key, server.name) !== undefined),
    );
    handled.push(...filters);
  }
  const customAt: Path = [...backend, "custom_tools"];
  const customTools = reader.isList(customAt) ? readCustomTools(reader, customAt) : [];
  if (reader.isList(customAt)) handled.push("custom_tools");
  return { servers, customTools, handled };
}
