// The baseline of bench:live: the least a server that keeps what its agents make must do.
// POST /trigger asks the model (the stand-in) exactly as Parley's agent does, reads its
// streamed answer to the end, stores the tool call's node as one row on PostgreSQL (one
// statement, one synchronous commit) and pushes it to its server-sent event clients in-process.
import http from "node:http";
import postgres from "postgres";

const sql = postgres(process.env.DATABASE_URL, { max: 4, onnotice: () => {} });
await sql`create table if not exists live_nodes (id bigserial primary key, text text not null, created_at timestamptz not null default now())`;
const standIn = process.env.STAND_IN_URL;

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
      const node = JSON.parse(args);
      const [row] = await sql`insert into live_nodes (text) values (${node.text}) returning id`;
      const frame = `id: ${row.id}\ndata: ${JSON.stringify({ type: "node.created", payload: { node: { id: String(row.id), text: node.text } } })}\n\n`;
      for (const client of clients) client.write(frame);
      response.writeHead(201).end();
    });
    return;
  }
  response.writeHead(404).end();
});
server.listen(0, "127.0.0.1", () => process.stdout.write(`${JSON.stringify({ port: server.address().port })}\n`));
