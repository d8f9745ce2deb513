import type { AgentMcpServer } from "@/db/schema";
import type { Env } from "@/lib/env";
import { isPrivateAddress } from "@/lib/models/agent-endpoint";
import { endpointUnder } from "@/lib/models/endpoint-address";

/**
 * Whether an imported agent's MCP server may be reached from this server, and with what. An
 * MCP server is a door out of the server (an address it calls) or into it (a process it
 * starts), so the operator opens each: endpoints as for models, commands one by one.
 */

/** `${NAME}` inside a header's or an environment entry's value: the variable holding the secret. */
export const VARIABLE_IN_TEXT = /\$\{([A-Z_][A-Z0-9_]*)\}/g;

/** A server's command line as an operator lists it: the command and its arguments, one space apart. */
function commandLine(server: { command: string; args: string[] }): string {
  return [server.command, ...server.args].map((word) => word.trim()).join(" ");
}

/** Whether the operator listed this exact command line in PARLEY_MCP_COMMANDS. */
function commandListed(server: { command: string; args: string[] }, env: Env): boolean {
  const line = commandLine(server);
  return env.PARLEY_MCP_COMMANDS.some((listed) => listed.split(/\s+/).join(" ") === line);
}

/**
 * How far an MCP server's address is trusted: listed by the operator, on a private address
 * (never reached unless listed), or any other public address (reached only for an admin's import).
 */
export function mcpEndpointStanding(url: string, env: Env): "listed" | "private" | "other" {
  if (env.PARLEY_IMPORT_ENDPOINTS.some((prefix) => endpointUnder(url, prefix))) return "listed";
  return isPrivateAddress(new URL(url).hostname) ? "private" : "other";
}

/** The variables a server's headers or environment read from the server's environment. */
function variablesRead(server: AgentMcpServer): string[] {
  const values = Object.values(server.transport === "stdio" ? (server.env ?? {}) : (server.headers ?? {}));
  return [...new Set(values.flatMap((value) => [...value.matchAll(VARIABLE_IN_TEXT)].map((match) => match[1]!)))];
}

/**
 * Why an agent's MCP server is not connected, or null when it may be: a command that is not
 * from an admin's import or not listed, an address that is private and not listed (or any
 * unlisted address a non-admin's file names), or a variable it reads that is not allowed or not set.
 */
export function mcpServerRefusal(server: AgentMcpServer, env: Env, secrets: NodeJS.ProcessEnv): string | null {
  if (server.transport === "stdio") {
    if (!server.importedByAdmin) {
      return "it starts a local command, and only a team imported by an admin may start one on the server.";
    }
    if (!commandListed(server, env)) {
      return `its command (${commandLine(server)}) is not listed in PARLEY_MCP_COMMANDS on the server; an admin may list it to let it run.`;
    }
  } else {
    const standing = mcpEndpointStanding(server.url, env);
    if (standing === "private") {
      return `${server.url} is on a loopback, link-local or private address; list it in PARLEY_IMPORT_ENDPOINTS on the server to allow it.`;
    }
    if (standing === "other" && !server.importedByAdmin) {
      return `${server.url} is not an endpoint this server lets imported teams use; list it in PARLEY_IMPORT_ENDPOINTS on the server, or import the team signed in as admin.`;
    }
  }
  for (const name of variablesRead(server)) {
    if (!env.PARLEY_IMPORT_KEY_VARIABLES.includes(name)) {
      return `${name} is not a variable this server lets agents use; list it in PARLEY_IMPORT_KEY_VARIABLES on the server to allow it.`;
    }
    if (!secrets[name]) return `${name} is not set on the server.`;
  }
  return null;
}

/** A header's or environment entry's value with the variables it names filled in. */
export function withVariables(text: string, secrets: NodeJS.ProcessEnv): string {
  return text.replace(VARIABLE_IN_TEXT, (_, name: string) => secrets[name] ?? "");
}
