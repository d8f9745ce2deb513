import { startChatServer } from "../test/chat-server";
import { startHttpMcpServer } from "../test/mcp/http-mcp-server";
import { E2E_MCP_PORT, E2E_MODEL_PORT } from "./support/constants";
import { expect, test } from "./support/fixtures";
import { RoomPage } from "./support/room-page";

test("an imported agent's MCP server shows its tools on the result, and the agent's call to one shows in the feed", async ({ page }) => {
  const shop = await startHttpMcpServer(E2E_MCP_PORT);
  // The stand-in model prices a kettle with the shop's tool, then says what it learned.
  const model = await startChatServer((request) => {
    const answered = request.messages.find((message) => message.role === "tool");
    if (!answered) return { toolCall: { name: "mcp__shop__lookup_price", arguments: { item: "kettle" } } };
    return { text: `The shop says: ${JSON.stringify(answered.content)}` };
  }, E2E_MODEL_PORT);
  try {
    await page.goto("/");
    const yaml = [
      "task: Price a kettle",
      "agents:",
      "  - id: shopper",
      "    backend:",
      "      type: chatcompletion",
      "      model: stand-in",
      `      base_url: ${model.baseURL}`,
      "      mcp_servers:",
      "        - name: shop",
      "          type: streamable-http",
      `          url: ${shop.url}`,
      "      custom_tools:",
      "        - name: [two_num_tool]",
      "          path: tools/_two_num_tool.py",
    ].join("\n");
    await page.getByTestId("import-yaml").fill(yaml);
    await page.getByTestId("import-offline").uncheck();
    await page.getByTestId("import-submit").click();

    const row = page.getByTestId("import-agent");
    await expect(row).toHaveCount(1);
    const tools = row.getByTestId("import-tool");
    await expect(tools).toHaveCount(2);
    await expect(tools.nth(0)).toHaveAttribute("data-connected", "true");
    await expect(tools.nth(0)).toHaveText("shop MCP server · lookup_price, explode, hang");
    await expect(tools.nth(1)).toHaveAttribute("data-connected", "false");
    await expect(tools.nth(1)).toContainText("two_num_tool custom tool, not run: a function in tools/_two_num_tool.py");
    await expect(row.getByTestId("import-agent-key")).toHaveText("none");
    await page.screenshot({ path: "test-results/team-tools-result.png", fullPage: true });

    await page.getByTestId("import-open").click();
    await expect(page).toHaveURL(/\/rooms\//);
    const room = new RoomPage(page);
    await expect(page.getByTestId("connection-status")).toHaveAttribute("data-state", "live");
    await room.takeSeat("Ada");
    await page.getByTestId("agent-shopper").getByTestId("agent-start").click();
    const feed = page.getByTestId("feed");
    await expect(feed.getByTestId("feed-entry").filter({ hasText: "shop: lookup_price" })).toHaveCount(1, { timeout: 30_000 });
    await expect(feed).toContainText("kettle costs 24 euros", { timeout: 30_000 });
    expect(shop.calls).toEqual([{ tool: "lookup_price", item: "kettle" }]);
    await page.screenshot({ path: "test-results/team-tools-feed.png", fullPage: true });
  } finally {
    await model.close();
    await shop.close();
  }
});
