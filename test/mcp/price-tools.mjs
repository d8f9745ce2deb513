// The tools of the test MCP servers, shared by the one served over HTTP in the test process and
// the one started as a local command (stdio-server.mjs). Plain JavaScript, so that `node` runs it as it is.
import { z } from "zod";

/** Registers `lookup_price`, `explode` (fails) and `hang` (never answers until cancelled) on an McpServer. */
export function registerPriceTools(server, calls = []) {
  server.registerTool(
    "lookup_price",
    { description: "The price of an item in the shop", inputSchema: { item: z.string().describe("What to price") } },
    async ({ item }) => {
      calls.push({ tool: "lookup_price", item });
      return { content: [{ type: "text", text: `${item} costs 24 euros` }] };
    },
  );
  server.registerTool("explode", { description: "Always fails", inputSchema: { reason: z.string() } }, async ({ reason }) => {
    calls.push({ tool: "explode", reason });
    return { isError: true, content: [{ type: "text", text: `the shop's till exploded: ${reason}` }] };
  });
  server.registerTool("hang", { description: "Never answers", inputSchema: {} }, async (_args, extra) => {
    calls.push({ tool: "hang" });
    await new Promise((resolve) => extra.signal.addEventListener("abort", resolve));
    return { content: [{ type: "text", text: "too late" }] };
  });
}
