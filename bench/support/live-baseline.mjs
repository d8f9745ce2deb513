// The baselines of bench:live: the least a server that keeps what its agents make must do.
// POST /trigger asks the model (the stand-in) exactly as Parley's agent does, reads its
// streamed answer to the end, stores the tool call's node as one row on PostgreSQL (one
// statement, one synchronous commit) and pushes it to its server-sent event clients in-process.
// With BASELINE_READER=sdk the answer is read by the AI SDK, as Parley reads it, and the
// node is stored and pushed by the tool the SDK runs: the same floor for a server that lets
// the SDK run its agents' tools.
import http from "node:http";
import { createOpenAICompatible } from "@ai-sdk/openai-compatible";
import { isStepCount, streamText, tool } from "ai";
import postgres from "postgres";
import { z } from "zod";

const sql = postgres(process.env.DATABASE_URL, { max: 4, onnotice: () => {} });
await sql`create table if not exists live_nodes (id bigserial primary key, text text not null, created_at timestamptz not null default now())`;
const standIn = process.env.STAND_IN_URL;
const model = createOpenAICompatible({ name: "stand-in", baseURL: standIn, apiKey: "stand-in", includeUsage: true }).chatModel("stand-in");

/** Stores a node as one row and pushes it to every client. */
async function storeAndPush(text) {
  const [row] = await sql`insert into live_nodes (text) values (${text}) returning id`;
  const frame = `id: ${row.id}\ndata: ${JSON.stringify({ type: "node.created", payload: { node: { id: String(row.id), text } } })}\n\n`;
  for (const client of clients) client.write(frame);
}

/** Reads the stand-in's streamed answer by hand: the tool call's arguments, once it has ended. */
async function byHand(tag) {
  const answer = await fetch(`${standIn}/chat/completions`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ model: "stand-in", stream: true, messages: [{ role: "user", content: tag }] }),
  });
  const streamed = await answer.text();
  let args = "";
  for (const line of streamed.split("\n")) {
    if (!line.startsWith("data: {")) continue;
    for (const call of JSON.parse(line.slice(6)).choices[0]?.delta?.tool_calls ?? []) args += call.function?.arguments ?? "";
  }
  await storeAndPush(JSON.parse(args).text);
}

/** Lets the AI SDK read the answer and run the tool, for one step (the node is what is timed). */
async function throughSdk(tag) {
  const result = streamText({
    model,
    messages: [{ role: "user", content: tag }],
    tools: {
      create_node: tool({
        description: "Create a node on the shared canvas.",
        inputSchema: z.object({ text: z.string().min(1), kind: z.string().default("note") }),
        execute: async ({ text }) => {
          await storeAndPush(text);
          return { ok: true };
        },
      }),
    },
    stopWhen: isStepCount(1),
    maxRetries: 0,
  });
  for await (const part of result.fullStream) if (part.type === "error") throw part.error;
}

const read = process.env.BASELINE_READER === "sdk" ? throughSdk : byHand;

const clients = new Set();
const server = http.createServer((request, response) => {
  if (request.method === "GET" && request.url.startsWith("/events")) {
    response.writeHead(200, { "content-type": "text/event-stream; charset=utf-8", "cache-control": "no-cache, no-transform" });
    response.write(": connected\n\n");
    clients.add(response);
    request.on("close", () => clients.delete(response));
    return;
  }
  if (request.method === "POST" && request.url === "/trigger") {
    let tag = "";
    request.on("data", (chunk) => (tag += chunk));
    request.on("end", async () => {
      await read(tag);
      response.writeHead(201).end();
    });
    return;
  }
  response.writeHead(404).end();
});
server.listen(0, "127.0.0.1", () => process.stdout.write(`${JSON.stringify({ port: server.address().port })}\n`));
