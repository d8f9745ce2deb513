import http from "node:http";
import type { AddressInfo } from "node:net";
import { Readable } from "node:stream";
import type { NextApiRequest, NextApiResponse } from "next";

type AppHandler = (request: Request, context: { params: Promise<Record<string, string>> }) => Promise<Response>;
type PagesHandler = (request: NextApiRequest, response: NextApiResponse) => Promise<void> | void;

/** A route's pattern (`/api/rooms/[roomId]/mcp`) as a matcher and the names of its segments. */
function compile(pattern: string) {
  const names: string[] = [];
  const matcher = new RegExp(
    `^${pattern.replace(/\[(\w+)\]/g, (_, name: string) => {
      names.push(name);
      return "([^/]+)";
    })}$`,
  );
  return { matcher, names };
}

/**
 * Serves App Router route handlers (web `Request` in, `Response` out, streamed as it is written)
 * and Pages API routes over real HTTP on a free port, as `next start` does: clients under test
 * (an SDK's HTTP transport, a viewer's event stream) talk to the real handlers.
 */
export async function serveRoutes(routes: { app?: Record<string, AppHandler>; pages?: Record<string, PagesHandler> }) {
  const app = Object.entries(routes.app ?? {}).map(([path, serve]) => ({ ...compile(path), serve }));
  const pages = Object.entries(routes.pages ?? {}).map(([path, serve]) => ({ ...compile(path), serve }));
  /** Each App Router answer whose headers were sent: `GET /path 200`, so a test can wait for a stream to be open. */
  const answered: string[] = [];
  const server = http.createServer((request, response) => {
    const url = new URL(request.url ?? "/", `http://${request.headers.host ?? "127.0.0.1"}`);
    const segments = (route: { matcher: RegExp; names: string[] }) => {
      const match = url.pathname.match(route.matcher);
      if (!match) return null;
      return Object.fromEntries(route.names.map((name, index) => [name, decodeURIComponent(match[index + 1]!)]));
    };
    for (const route of pages) {
      const params = segments(route);
      if (!params) continue;
      Object.assign(request, { query: { ...Object.fromEntries(url.searchParams), ...params } });
      void route.serve(request as NextApiRequest, response as NextApiResponse);
      return;
    }
    for (const route of app) {
      const params = segments(route);
      if (!params) continue;
      void serveApp(route.serve, params, url, request, response, (status) => answered.push(`${request.method} ${url.pathname} ${status}`));
      return;
    }
    response.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url: (path: string) => `${base}${path}`,
    answered,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

async function serveApp(
  handler: AppHandler,
  params: Record<string, string>,
  url: URL,
  request: http.IncomingMessage,
  response: http.ServerResponse,
  onHeaders: (status: number) => void,
): Promise<void> {
  const abort = new AbortController();
  response.on("close", () => abort.abort());
  const headers = new Headers();
  for (const [name, value] of Object.entries(request.headers)) {
    if (value !== undefined) headers.set(name, Array.isArray(value) ? value.join(", ") : value);
  }
  const hasBody = request.method !== "GET" && request.method !== "HEAD";
  const webRequest = new Request(url, {
    method: request.method,
    headers,
    body: hasBody ? (Readable.toWeb(request) as ReadableStream<Uint8Array>) : undefined,
    signal: abort.signal,
    ...(hasBody ? { duplex: "half" } : {}),
  } as RequestInit);
  const answer = await handler(webRequest, { params: Promise.resolve(params) });
  response.writeHead(answer.status, Object.fromEntries(answer.headers));
  response.flushHeaders();
  onHeaders(answer.status);
  if (!answer.body) {
    response.end();
    return;
  }
  const reader = answer.body.getReader();
  abort.signal.addEventListener("abort", () => void reader.cancel().catch(() => {}));
  try {
    while (true) {
      const chunk = await reader.read();
      if (chunk.done) break;
      response.write(chunk.value);
    }
  } catch {
    // The client went away mid-stream.
  }
  response.end();
}
