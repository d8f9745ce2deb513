// The baseline: a bare node:http server-sent events broadcaster with no database and no
// framework. POST /publish writes the body to every connected client as one event.
import http from "node:http";

const clients = new Set();
let seq = 0;
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
    request.on("end", () => {
      seq += 1;
      const frame = `id: ${seq}\ndata: ${body}\n\n`;
      for (const client of clients) client.write(frame);
      response.writeHead(201, { "content-type": "application/json" });
      response.end(JSON.stringify({ seq }));
    });
    return;
  }
  response.writeHead(404);
  response.end();
});
server.listen(Number(process.env.PORT ?? 0), "127.0.0.1", () => {
  process.stdout.write(`${JSON.stringify({ port: server.address().port })}\n`);
});
