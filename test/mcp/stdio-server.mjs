// An MCP server started as a local command (`node test/mcp/stdio-server.mjs`), made with the MCP SDK.
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { registerPriceTools } from "./price-tools.mjs";

const server = new McpServer({ name: "shop-stdio", version: "1.0.0" });
registerPriceTools(server);
// Ends the server's process mid-call: its client sees the connection close.
server.registerTool("crash", { description: "Stops the server", inputSchema: {} }, async () => process.exit(1));
await server.connect(new StdioServerTransport());
