import net from "node:net";
import type { AddressInfo } from "node:net";
import { sql } from "drizzle-orm";
import { type Database, openPostgres } from "@/db/client";

/** A TCP proxy that holds every chunk the server sends for `delayMs` before passing it on, in order. */
async function delayingProxy(targetPort: number, delayMs: number) {
  const sockets = new Set<net.Socket>();
  const server = net.createServer((client) => {
    const upstream = net.connect(targetPort, "127.0.0.1");
    sockets.add(client).add(upstream);
    client.pipe(upstream);
    upstream.on("data", (chunk) => setTimeout(() => client.write(chunk), delayMs));
    client.on("error", () => upstream.destroy());
    upstream.on("error", () => client.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    port: (server.address() as AddressInfo).port,
    close: () => {
      for (const socket of sockets) socket.destroy();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/**
 * Runs `check` on a PostgreSQL database whose every answer arrives `delayMs` late, as over a
 * slow network. `roundTrips(work)` runs `work` and tells how many times it waited for the
 * server: its duration divided by the delay.
 */
export async function overSlowNetwork(
  databaseUrl: string,
  delayMs: number,
  check: (db: Database["db"], roundTrips: (work: () => Promise<unknown>) => Promise<number>) => Promise<void>,
) {
  const url = new URL(databaseUrl);
  const proxy = await delayingProxy(Number(url.port || 5432), delayMs);
  url.port = String(proxy.port);
  const slow = await openPostgres({ url: url.toString(), max: 2 });
  try {
    await Promise.all([slow.db.execute(sql`select 1`), slow.db.execute(sql`select 2`)]);
    await check(slow.db, async (work) => {
      const started = performance.now();
      await work();
      return Math.floor((performance.now() - started) / delayMs);
    });
  } finally {
    await slow.close();
    await proxy.close();
  }
}
