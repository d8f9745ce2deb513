// Preloaded into the server process (`node --import`, or imported first by scripts/start.mjs),
// before Next.js creates its HTTP server, which it then wraps:
// - every request is stamped with the address of the connection it came in on. App Router
//   handlers get no socket, and Next.js fills `X-Forwarded-For` only when the client sent none,
//   so without this a client could claim any address and slip past Parley's limits per address
//   (lib/http/client-address.ts);
// - the front door (scripts/front-door.mjs) turns away, with the security headers, what must not
//   reach Next.js: another site's host name, methods it cannot take, undecodable or dot paths.
import http from "node:http";
import { allowedHosts, frontDoorRefusal, rawRefusal, refusalAnswer, unparsedRefusal } from "./front-door.mjs";

const HEADER = "x-parley-peer-address";

// Tells the app the header can be trusted: without this preload, a client could send it itself.
globalThis[Symbol.for("parley.peerAddressStamped")] = true;

const isAllowedHost = allowedHosts(process.env);

function refuse(request, response) {
  const refused = frontDoorRefusal({ method: request.method, target: request.url, host: request.headers.host }, isAllowedHost);
  if (!refused) return false;
  const { status, headers, body } = refusalAnswer(refused);
  response.shouldKeepAlive = false;
  response.writeHead(status, headers);
  response.end(request.method === "HEAD" ? undefined : body);
  return true;
}

/** Answers on a socket no response owns, then closes it once the answer is out. */
function answerOnSocket(socket, refused) {
  if (!socket.writable || socket.bytesWritten > 0) return socket.destroy();
  socket.end(rawRefusal(refused), () => socket.destroy());
}

const createServer = http.createServer;
http.createServer = function createGuardedServer(...args) {
  // A request without a Host is the front door's to refuse, with the security headers, rather
  // than Node.js's (a bare 400).
  const options = typeof args[0] === "function" ? {} : args.shift();
  const server = createServer.call(this, { ...options, requireHostHeader: false }, ...args);
  const emit = server.emit;
  server.emit = function emitPastTheDoor(event, ...rest) {
    if (event === "request") {
      const [request, response] = rest;
      request.headers[HEADER] = request.socket?.remoteAddress ?? "";
      if (refuse(request, response)) return true;
    } else if (event === "upgrade") {
      const [request, socket] = rest;
      const refused = frontDoorRefusal({ method: "GET", target: request.url, host: request.headers.host }, isAllowedHost);
      if (refused) {
        answerOnSocket(socket, refused);
        return true;
      }
    }
    return emit.call(this, event, ...rest);
  };
  // Without a listener, Node.js drops a CONNECT request's connection with no answer at all.
  server.on("connect", (request, socket) => {
    const refused = frontDoorRefusal({ method: "CONNECT", target: request.url, host: request.headers.host }, isAllowedHost);
    answerOnSocket(
      socket,
      refused ?? { api: false, status: 405, code: "method_not_allowed", message: "CONNECT is not allowed.", headers: {} },
    );
  });
  // Node.js's own answer to a request it cannot parse (an unknown method, say) is a bare 400.
  server.on("clientError", (error, socket) => {
    if (error.code === "ECONNRESET") return socket.destroy();
    answerOnSocket(socket, unparsedRefusal(error.code, error.rawPacket, isAllowedHost));
  });
  return server;
};
