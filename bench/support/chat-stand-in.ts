import http from "node:http";
import type { AddressInfo } from "node:net";

/** The tag a run's prompt carries, which the stand-in writes into the node it asks for. */
const TAG = /\blive-[a-z0-9]+-\d+\b/;

/**
 * A local server speaking the Chat Completions protocol as an OpenAI-compatible provider would,
 * with no latency of its own. Its first answer to a conversation streams one `create_node` tool
 * call whose text is the tag found in the last user message; once the conversation holds the
 * tool's result it answers "Done.". It notes when it handed the last byte of each tool call
 * answer to the socket, by tag.
 */
export async function startChatStandIn() {
  const lastByteAt = new Map<string, number>();
  const chunk = (delta: Record<string, unknown>, finish: string | null = null) =>
    `data: ${JSON.stringify({ id: "chatcmpl-live", object: "chat.completion.chunk", created: 1_763_800_000, model: "stand-in", choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
  const usage = `data: ${JSON.stringify({ id: "chatcmpl-live", object: "chat.completion.chunk", created: 1_763_800_000, model: "stand-in", choices: [], usage: { prompt_tokens: 120, completion_tokens: 24, total_tokens: 144 } })}\n\n`;
  const server = http.createServer((request, response) => {
    let raw = "";
    request.setEncoding("utf8");
    request.on("data", (part: string) => (raw += part));
    request.on("end", () => {
      const body = JSON.parse(raw) as { messages: { role: string; content: unknown }[] };
      const answered = body.messages.some((message) => message.role === "tool");
      const text = body.messages
        .filter((message) => message.role === "user")
        .map((message) => (typeof message.content === "string" ? message.content : JSON.stringify(message.content)))
        .join("\n");
      const tag = text.match(TAG)?.[0] ?? "untagged";
      response.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
      if (answered) {
        response.end(`${chunk({ role: "assistant", content: "Done." })}${chunk({}, "stop")}${usage}data: [DONE]\n\n`);
        return;
      }
      const args = JSON.stringify({ text: tag, kind: "lyric" });
      response.write(
        chunk({
          role: "assistant",
          tool_calls: [{ index: 0, id: `call_${tag}`, type: "function", function: { name: "create_node", arguments: "" } }],
        }),
      );
      response.write(chunk({ tool_calls: [{ index: 0, function: { arguments: args } }] }));
      response.end(`${chunk({}, "tool_calls")}${usage}data: [DONE]\n\n`);
      lastByteAt.set(tag, performance.now());
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    baseURL: `http://127.0.0.1:${port}/v1`,
    lastByteAt,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
