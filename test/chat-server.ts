import http from "node:http";
import type { AddressInfo } from "node:net";

/** A request an OpenAI-compatible stand-in received. */
export interface ChatRequest {
  /** False for a call that wants the whole answer at once (`generateText`: a shadow's answer). */
  stream?: boolean;
  messages: { role: string; content: unknown }[];
  tools?: { function: { name: string } }[];
}

export type ChatReply =
  | { text: string }
  | { toolCall: { name: string; arguments: Record<string, unknown> } }
  /** A refusal with this status (503, 429, …), as a provider's error body. */
  | { status: number; headers?: Record<string, string> }
  /** No answer at all: the connection stays open and silent, as a hung provider's does, until the server closes. */
  | { hang: true };

const chunk = (delta: Record<string, unknown>, finish: string | null = null) =>
  `data: ${JSON.stringify({ id: "chatcmpl-t", object: "chat.completion.chunk", created: 1_763_800_000, model: "stand-in", choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
const usage = `data: ${JSON.stringify({ id: "chatcmpl-t", object: "chat.completion.chunk", created: 1_763_800_000, model: "stand-in", choices: [], usage: { prompt_tokens: 100, completion_tokens: 10, total_tokens: 110 } })}\n\n`;

/**
 * A local server speaking the Chat Completions protocol, as a provider would: each request
 * is recorded, then answered with what `reply` returns, which may wait — streamed when the
 * request asks for a stream, whole otherwise.
 */
export async function startChatServer(
  reply: (request: ChatRequest, index: number) => ChatReply | Promise<ChatReply>,
  /** A fixed port (a server started elsewhere lists it as an allowed endpoint); any free one by default. */
  port = 0,
) {
  const requests: ChatRequest[] = [];
  /** Where each request went and the key it carried. */
  const received: { url: string; authorization: string | undefined }[] = [];
  const server = http.createServer((req, res) => {
    let raw = "";
    req.setEncoding("utf8");
    req.on("data", (part: string) => (raw += part));
    req.on("end", async () => {
      const body = JSON.parse(raw) as ChatRequest;
      requests.push(body);
      received.push({ url: req.url ?? "", authorization: req.headers.authorization });
      const answer = await reply(body, requests.length - 1);
      if ("hang" in answer) return;
      if ("status" in answer) {
        res.writeHead(answer.status, { "content-type": "application/json", ...answer.headers });
        res.end(JSON.stringify({ error: { message: "upstream is busy", type: "server_error" } }));
        return;
      }
      if (!body.stream) {
        const message =
          "text" in answer
            ? { role: "assistant", content: answer.text }
            : {
                role: "assistant",
                content: null,
                tool_calls: [
                  {
                    id: `call_${requests.length}`,
                    type: "function",
                    function: { name: answer.toolCall.name, arguments: JSON.stringify(answer.toolCall.arguments) },
                  },
                ],
              };
        res.writeHead(200, { "content-type": "application/json" });
        res.end(
          JSON.stringify({
            id: "chatcmpl-t",
            object: "chat.completion",
            created: 1_763_800_000,
            model: "stand-in",
            choices: [{ index: 0, message, finish_reason: "text" in answer ? "stop" : "tool_calls" }],
            usage: { prompt_tokens: 100, completion_tokens: 10, total_tokens: 110 },
          }),
        );
        return;
      }
      res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
      if ("text" in answer) {
        res.end(`${chunk({ role: "assistant", content: answer.text })}${chunk({}, "stop")}${usage}data: [DONE]\n\n`);
        return;
      }
      const args = JSON.stringify(answer.toolCall.arguments);
      res.write(
        chunk({
          role: "assistant",
          tool_calls: [
            { index: 0, id: `call_${requests.length}`, type: "function", function: { name: answer.toolCall.name, arguments: "" } },
          ],
        }),
      );
      res.write(chunk({ tool_calls: [{ index: 0, function: { arguments: args } }] }));
      res.end(`${chunk({}, "tool_calls")}${usage}data: [DONE]\n\n`);
    });
  });
  await new Promise<void>((resolve) => server.listen(port, "127.0.0.1", resolve));
  const listening = (server.address() as AddressInfo).port;
  return {
    requests,
    received,
    baseURL: `http://127.0.0.1:${listening}/v1`,
    /** Everything the user turns of one request said, as text. */
    userText: (index: number) =>
      (requests[index]?.messages ?? [])
        .filter((message) => message.role === "user")
        .map((message) => (typeof message.content === "string" ? message.content : JSON.stringify(message.content)))
        .join("\n"),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
