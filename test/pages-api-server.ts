import http from "node:http";
import type { AddressInfo } from "node:net";
import type { NextApiRequest, NextApiResponse } from "next";

type PagesHandler = (request: NextApiRequest, response: NextApiResponse) => Promise<void> | void;

/** A path pattern such as `/api/rooms/[roomId]/events` as a matcher and the names of its segments. */
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
 * Serves Pages API routes (one pattern and handler, or a map of them) over real HTTP on a
 * free port, filling `request.query` from the path pattern and the query string, as Next.js
 * does. A path no pattern matches answers 404.
 */
export async function servePagesApi(pattern: string | Record<string, PagesHandler>, handler?: PagesHandler) {
  const routes = Object.entries(typeof pattern === "string" ? { [pattern]: handler! } : pattern).map(([path, serve]) => ({
    ...compile(path),
    serve,
  }));
  const server = http.createServer((request, response) => {
    const url = new URL(request.url ?? "/", "http://localhost");
    for (const route of routes) {
      const match = url.pathname.match(route.matcher);
      if (!match) continue;
      const query: Record<string, string> = Object.fromEntries(url.searchParams);
      route.names.forEach((name, index) => {
        query[name] = decodeURIComponent(match[index + 1]!);
      });
      Object.assign(request, { query });
      void route.serve(request as NextApiRequest, response as NextApiResponse);
      return;
    }
    response.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url: (path: string) => `${base}${path}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
