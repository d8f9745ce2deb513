// The baseline: a bare node:http server-sent events broadcaster with no framework.
// POST /publish writes the body to every connected client as one event. With DATABASE_URL
// set it first stores the body as a row of its own table on PostgreSQL (one statement, one
// synchronous commit): the least any broadcaster that keeps its events must wait for.
import http from "node:http";
import postgres from "postgres";

const sql = process.env.DATABASE_URL ? postgres(process.env.DATABASE_URL, { max: 4, onnotice: () => {} }) : null;
if (sql) await sql`create table if not exists bare_events (seq bigserial primary key, body text not null)`;

const clients = new Set();
let seq = 0;
const broadcast = (body) => {
  seq += 1;
  const frame = `id: ${seq}\ndata: ${body}\n\n`;
  for (const client of clients) client.write(frame);
  return seq;
};

const server = http.createServer((request, response) => {
  if (request.method === "GET" && request.url.startsWith("/events")) {
    response.writeHead(200, {
      "content-type": "text/event-stream; charset=utf-8",
      "cache-control": "no-cache, no-transform",
      "x-accel-buffering": "no",
    });
    response.write("retry: 2000\n\n: connected\n\n");
    clients.add(response);
    request.on("close", () => clients.delete(response));
    return;
  }
  if (request.method === "POST" && request.url === "/publish") {
    let body = "";
    request.on("data", (chunk) => (body += chunk));
    request.on("end", async () => {
      if (sql) await sql`insert into bare_events (body) values (${body})`;
      const sent = broadcast(body);
      response.writeHead(201, { "content-type": "application/json" });
      response.end(JSON.stringify({ seq: sent }));
    });
    return;
  }
  response.writeHead(404);
  response.end();
});
server.listen(Number(process.env.PORT ?? 0), "127.0.0.1", () => {
  process.stdout.write(`${JSON.stringify({ port: server.address().port })}\n`);
});
