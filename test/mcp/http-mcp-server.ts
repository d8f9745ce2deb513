import http from "node:http";
import type { AddressInfo } from "node:net";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { registerPriceTools } from "./price-tools.mjs";

/** A call one of the test MCP server's tools received. */
export interface ShopToolCall {
  tool: string;
  item?: string;
  reason?: string;
}

/**
 * An MCP server made with the MCP SDK, served over Streamable HTTP on the loopback address in
 * the test process (stateless: a server and transport per request), with the shop's tools.
 */
export async function startHttpMcpServer(port = 0) {
  const calls: ShopToolCall[] = [];
  const server = http.createServer(async (req, res) => {
    if (req.url !== "/mcp") {
      res.writeHead(404).end();
      return;
    }
    const mcp = new McpServer({ name: "shop", version: "1.0.0" });
    registerPriceTools(mcp, calls);
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
    res.on("close", () => {
      void transport.close();
      void mcp.close();
    });
    await mcp.connect(transport);
    await transport.handleRequest(req, res);
  });
  await new Promise<void>((resolve) => server.listen(port, "127.0.0.1", resolve));
  const listening = (server.address() as AddressInfo).port;
  return {
    calls,
    url: `http://127.0.0.1:${listening}/mcp`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
