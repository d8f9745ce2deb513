import http from "node:http";
import type { AddressInfo } from "node:net";
import type { NextApiRequest, NextApiResponse } from "next";

type PagesHandler = (request: NextApiRequest, response: NextApiResponse) => Promise<void> | void;

/**
 * Serves one Pages API route over real HTTP on a free port, filling `request.query` from
 * the path pattern (`/api/rooms/[roomId]/events`) and the query string, as Next.js does.
 */
export async function servePagesApi(pattern: string, handler: PagesHandler) {
  const names: string[] = [];
  const matcher = new RegExp(
    `^${pattern.replace(/\[(\w+)\]/g, (_, name: string) => {
      names.push(name);
      return "([^/]+)";
    })}$`,
  );
  const server = http.createServer((request, response) => {
    const url = new URL(request.url ?? "/", "http://localhost");
    const match = url.pathname.match(matcher);
    if (!match) {
      response.writeHead(404).end();
      return;
    }
    const query: Record<string, string> = Object.fromEntries(url.searchParams);
    names.forEach((name, index) => (query[name] = decodeURIComponent(match[index + 1]!)));
    Object.assign(request, { query });
    void handler(request as NextApiRequest, response as NextApiResponse);
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
