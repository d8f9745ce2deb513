import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { expect, test } from "./support/fixtures";
import { createRoomViaApi } from "./support/room-page";

test("a participant invites an outside agent, whose MCP client works in the room as a teammate until revoked", async ({
  openRoom,
  baseURL,
}) => {
  const roomId = await createRoomViaApi(baseURL!, "Outside help");
  const ada = await openRoom(roomId, { name: "Ada" });
  const watcher = await openRoom(roomId);

  // Spectators cannot invite.
  await expect(watcher.page.getByTestId("external-invite-open")).toHaveCount(0);
  await ada.page.getByTestId("external-invite-open").click();
  await ada.page.getByTestId("external-name").fill("Claude Code");
  await ada.page.getByTestId("external-invite").click();
  const claudeLine = ada.page.getByTestId("external-setup-claude");
  await expect(claudeLine).toContainText(`claude mcp add --transport http parley-claude-code ${baseURL}/api/rooms/${roomId}/mcp`);
  await expect(ada.page.getByTestId("external-setup-cursor")).toContainText('"mcpServers"');
  await ada.page.screenshot({ path: "test-results/e2e/external-invite.png" });
  const token = (await claudeLine.textContent())!.match(/Bearer (parley_mcp_[\w-]+)/)![1]!;

  // Both tabs see the new teammate in the roster, badged, idle until it calls.
  for (const room of [ada, watcher]) {
    const row = room.page.getByTestId("agent-external-claudecode");
    await expect(row.getByTestId("agent-external-badge")).toHaveText("external · MCP");
    await expect(row).toHaveAttribute("data-status", "idle");
  }

  const client = new Client({ name: "e2e-outside-agent", version: "1.0.0" });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${baseURL}/api/rooms/${roomId}/mcp`), {
      requestInit: { headers: { Authorization: `Bearer ${token}` } },
    }),
  );
  const created = await client.callTool({ name: "create_note", arguments: { text: "A harbour at dawn, from Claude Code" } });
  expect(created.isError).not.toBe(true);
  for (const room of [ada, watcher]) {
    await expect(room.page.locator(".react-flow__node").filter({ hasText: "A harbour at dawn, from Claude Code" })).toHaveCount(1);
    await expect(room.page.getByTestId("agent-external-claudecode")).toHaveAttribute("data-status", "running");
    await expect(room.page.getByTestId("agent-external-claudecode").getByTestId("agent-status")).toHaveText("working");
  }
  await watcher.page.screenshot({ path: "test-results/e2e/external-agent-room.png" });

  // Ada's @message waits for the agent's own client, which reads it once.
  await ada.page.getByTestId("command-input").fill("@Claude Code add a second verse");
  await ada.page.getByTestId("command-send").click();
  await expect(ada.page.getByTestId("command-status")).toHaveText("Sent to Claude Code — when its client reads its messages.");
  const read = await client.callTool({ name: "read_messages", arguments: {} });
  expect(JSON.stringify(read.content)).toContain("add a second verse");

  // Revoked from the room: the very next call is refused.
  await ada.page.getByTestId("external-revoke").click();
  await expect(ada.page.getByTestId("external-tokens").locator('li[data-state="revoked"]')).toHaveCount(1);
  await expect(client.callTool({ name: "read_room", arguments: {} })).rejects.toThrow(/revoked/);
  await client.close().catch(() => {});
});
