import http from "node:http";
import type { AddressInfo } from "node:net";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { SSEServerTransport } from "@modelcontextprotocol/sdk/server/sse.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { registerPriceTools } from "./price-tools.mjs";

/** A call one of the test MCP server's tools received. */
interface ShopToolCall {
  tool: string;
  item?: string;
  reason?: string;
}

/**
 * An MCP server made with the MCP SDK, served on the loopback address in the test process with
 * the shop's tools: over Streamable HTTP at `/mcp` (stateless: a server and transport per
 * request), and over the older HTTP+SSE transport at `/sse` (its messages posted to `/messages`).
 */
export async function startHttpMcpServer(port = 0) {
  const calls: ShopToolCall[] = [];
  const sessions = new Map<string, SSEServerTransport>();
  const server = http.createServer(async (req, res) => {
    if (req.url === "/sse") {
      const mcp = new McpServer({ name: "shop", version: "1.0.0" });
      registerPriceTools(mcp, calls);
      const transport = new SSEServerTransport("/messages", res);
      sessions.set(transport.sessionId, transport);
      res.on("close", () => sessions.delete(transport.sessionId));
      await mcp.connect(transport);
      return;
    }
    if (req.url?.startsWith("/messages")) {
      const session = sessions.get(new URL(req.url, "http://localhost").searchParams.get("sessionId") ?? "");
      if (!session) res.writeHead(404).end();
      else await session.handlePostMessage(req, res);
      return;
    }
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
    sseUrl: `http://127.0.0.1:${listening}/sse`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
