/** Ready-to-paste set-up for an invited agent's MCP client: Claude Code, Cursor, and any other. */
export interface McpSetup {
  url: string;
  claudeCode: string;
  cursor: string;
  generic: string;
}

/** The name an MCP client lists the server under: the room's agent name, as a client's config key allows. */
function serverName(agentName: string): string {
  const slug = agentName
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-|-$/g, "");
  return `parley-${slug || "agent"}`;
}

/** How to connect an MCP client to a room's endpoint with its token. */
export function mcpSetup(origin: string, roomId: string, agentName: string, token: string): McpSetup {
  const url = `${origin}/api/rooms/${encodeURIComponent(roomId)}/mcp`;
  const name = serverName(agentName);
  const header = `Authorization: Bearer ${token}`;
  const cursor = JSON.stringify({ mcpServers: { [name]: { url, headers: { Authorization: `Bearer ${token}` } } } }, null, 2);
  return {
    url,
    claudeCode: `claude mcp add --transport http ${name} ${url} --header "${header}"`,
    cursor,
    generic: `Streamable HTTP endpoint: ${url}\nHeader: ${header}`,
  };
}
