import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";

export function registerPriceTools(server: McpServer, calls?: { tool: string; item?: string; reason?: string }[]): void;
