// Preloaded into the server process (`node --import`): stamps every request with the address
// of the connection it came in on, before Next.js sees it. App Router handlers get no socket,
// and Next.js fills `X-Forwarded-For` only when the client sent none, so without this a client
// could claim any address and slip past Parley's limits per address (lib/http/client-address.ts).
import http from "node:http";

const HEADER = "x-parley-peer-address";

function stamp(request) {
  request.headers[HEADER] = request.socket?.remoteAddress ?? "";
}

// Tells the app the header can be trusted: without this preload, a client could send it itself.
globalThis[Symbol.for("parley.peerAddressStamped")] = true;

const createServer = http.createServer;
http.createServer = function createStampingServer(...args) {
  const server = createServer.apply(this, args);
  server.prependListener("request", stamp);
  return server;
};
