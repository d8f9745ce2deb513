import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { SSEClientTransport } from "@modelcontextprotocol/sdk/client/sse.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import { type JSONSchema7, type ToolSet, dynamicTool, jsonSchema } from "ai";
import type { AgentMcpServer } from "@/db/schema";
import type { Env } from "@/lib/env";
import { mcpServerRefusal, withVariables } from "./mcp-server-access";

/** What became of one of an agent's MCP servers: the tools it offers the agent, or why none. */
export interface McpServerStatus {
  server: string;
  transport: AgentMcpServer["transport"];
  connected: boolean;
  /** The tools as the model is offered them (`mcp__<server>__<tool>`). */
  tools: string[];
  reason: string | null;
}

export interface ConnectedMcpTools {
  tools: ToolSet;
  status: McpServerStatus[];
  /** Ends every connection and stops every command started; safe to call more than once. */
  close(): Promise<void>;
  [Symbol.asyncDispose](): Promise<void>;
}

export interface ConnectOptions {
  env: Env;
  /** Where the variables a server's headers or environment name are read. */
  secrets?: NodeJS.ProcessEnv;
  /**
   * How long connecting, and each tool call, may take: a run's model-call time limit, so that a
   * hanging server holds a run no longer than a hanging provider would.
   */
  timeoutMs: number;
}

/** Per server: more tools than a model can choose among well are not offered. */
const MAX_TOOLS_PER_SERVER = 64;
/** What a tool's result may put in the conversation (and the run's steps), in characters. */
const MAX_RESULT_CHARS = 16_000;

const CLIENT_INFO = { name: "parley", version: "1.0.0" };

/** A tool's name as the model sees it: providers take letters, digits, `_` and `-`, at most 64. */
function mcpToolName(server: string, tool: string): string {
  return `mcp__${server}__${tool}`.replace(/[^A-Za-z0-9_-]/g, "_").slice(0, 64);
}

function transportFor(server: AgentMcpServer, secrets: NodeJS.ProcessEnv): Transport {
  if (server.transport === "stdio") {
    const env = Object.fromEntries(Object.entries(server.env ?? {}).map(([name, value]) => [name, withVariables(value, secrets)]));
    // The command's own stderr would interleave with the server's log; it is dropped.
    return new StdioClientTransport({ command: server.command, args: server.args, env, stderr: "ignore" });
  }
  const headers = Object.fromEntries(Object.entries(server.headers ?? {}).map(([name, value]) => [name, withVariables(value, secrets)]));
  const url = new URL(server.url);
  return server.transport === "sse"
    ? new SSEClientTransport(url, { requestInit: { headers } })
    : new StreamableHTTPClientTransport(url, { requestInit: { headers } });
}

function chooses(server: AgentMcpServer, tool: string): boolean {
  if (server.allowedTools && !server.allowedTools.includes(tool)) return false;
  return !server.excludedTools?.includes(tool);
}

/** A tool result's content as text for the model: text as it is, anything else named by its kind. */
function resultText(content: unknown): string {
  if (!Array.isArray(content)) return "";
  const text = content
    .map((part: { type?: string; text?: string; resource?: { uri?: string; text?: string } }) => {
      if (part.type === "text") return part.text ?? "";
      if (part.type === "resource") return part.resource?.text ?? `[resource ${part.resource?.uri ?? ""}]`;
      return `[${part.type ?? "content"} omitted]`;
    })
    .join("\n");
  return text.length > MAX_RESULT_CHARS ? `${text.slice(0, MAX_RESULT_CHARS)}… [cut at ${MAX_RESULT_CHARS} characters]` : text;
}

function failureText(error: unknown): string {
  return (error instanceof Error ? error.message : String(error)).replace(/\s+/g, " ").slice(0, 300);
}

async function connectOne(
  server: AgentMcpServer,
  options: ConnectOptions,
  secrets: NodeJS.ProcessEnv,
): Promise<{ client: Client | null; tools: ToolSet; status: McpServerStatus }> {
  const status: McpServerStatus = { server: server.name, transport: server.transport, connected: false, tools: [], reason: null };
  const refusal = mcpServerRefusal(server, options.env, secrets);
  if (refusal) return { client: null, tools: {}, status: { ...status, reason: refusal } };
  const client = new Client(CLIENT_INFO);
  const limits = { timeout: options.timeoutMs, maxTotalTimeout: options.timeoutMs };
  try {
    await client.connect(transportFor(server, secrets), limits);
    const listed = await client.listTools({}, limits);
    const tools: ToolSet = {};
    for (const tool of listed.tools.filter((entry) => chooses(server, entry.name)).slice(0, MAX_TOOLS_PER_SERVER)) {
      const name = mcpToolName(server.name, tool.name);
      tools[name] = dynamicTool({
        description: `${tool.description ?? tool.title ?? tool.name} (from the ${server.name} MCP server)`.slice(0, 1024),
        inputSchema: jsonSchema(tool.inputSchema as JSONSchema7),
        // A failure, a refusal by the server, a lost connection or a call past the time limit
        // is thrown: the model reads it as the tool's error and the run goes on.
        execute: async (input, { abortSignal }) => {
          let result: Awaited<ReturnType<Client["callTool"]>>;
          try {
            result = await client.callTool({ name: tool.name, arguments: (input ?? {}) as Record<string, unknown> }, undefined, {
              ...limits,
              signal: abortSignal,
            });
          } catch (error) {
            throw new Error(`${server.name} MCP server: ${tool.name} failed: ${failureText(error)}`);
          }
          const text = resultText(result.content);
          if (result.isError) throw new Error(`${server.name} MCP server: ${tool.name} failed: ${text.slice(0, 1000) || "an error"}`);
          return result.structuredContent && !text ? result.structuredContent : text;
        },
      });
    }
    return { client, tools, status: { ...status, connected: true, tools: Object.keys(tools) } };
  } catch (error) {
    await client.close().catch(() => {});
    return { client: null, tools: {}, status: { ...status, reason: `it could not be reached: ${failureText(error)}` } };
  }
}

/**
 * Connects an agent's MCP servers with the MCP SDK's client (each within the time limit, side
 * by side) and makes their tools AI SDK tools, named `mcp__<server>__<tool>` so that they never
 * take the name of one of Parley's own. A server that may not be reached, cannot be reached or
 * fails to list its tools is left out, with why.
 */
export async function connectMcpTools(servers: AgentMcpServer[], options: ConnectOptions): Promise<ConnectedMcpTools> {
  const secrets = options.secrets ?? process.env;
  const connected = await Promise.all(servers.map((server) => connectOne(server, options, secrets)));
  let closing: Promise<void> | null = null;
  const close = () => {
    closing ??= Promise.all(connected.map(({ client }) => client?.close().catch(() => {}))).then(() => {});
    return closing;
  };
  return {
    tools: Object.assign({}, ...connected.map((entry) => entry.tools)) as ToolSet,
    status: connected.map((entry) => entry.status),
    close,
    [Symbol.asyncDispose]: close,
  };
}
