import net from "node:net";
import type { AddressInfo } from "node:net";
import { sql } from "drizzle-orm";
import { type Database, openPostgres } from "@/db/client";

/**
 * A TCP proxy that holds every chunk the server sends for `delayMs` before passing it on, in
 * order, and counts the client's turns: each time the client speaks after it has been answered
 * since it last spoke is one more round trip it waited for.
 */
async function delayingProxy(targetPort: number, delayMs: number) {
  const sockets = new Set<net.Socket>();
  let turns = 0;
  let answered = true;
  const server = net.createServer((client) => {
    const upstream = net.connect(targetPort, "127.0.0.1");
    // No Nagle on the proxy's own sockets, so chunks are not held back waiting for ACKs.
    client.setNoDelay(true);
    upstream.setNoDelay(true);
    sockets.add(client).add(upstream);
    client.on("data", (chunk) => {
      if (answered) turns++;
      answered = false;
      upstream.write(chunk);
    });
    upstream.on("data", (chunk) =>
      setTimeout(() => {
        answered = true;
        client.write(chunk);
      }, delayMs),
    );
    client.on("error", () => upstream.destroy());
    upstream.on("error", () => client.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    port: (server.address() as AddressInfo).port,
    /** Starts counting the client's turns afresh. */
    resetTurns: () => {
      turns = 0;
      answered = true;
    },
    turns: () => turns,
    close: () => {
      for (const socket of sockets) socket.destroy();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/**
 * Runs `check` on a PostgreSQL database whose every answer arrives `delayMs` late, as over a
 * slow network. `roundTrips(work)` runs `work` and tells how many times it waited for the
 * server: how often it sent something after an answer had come back. Counting turns rather than
 * timing them keeps a slow fsync or a pause in the test process from looking like a round trip;
 * the delay still makes sure that what could be sent together is not mistaken for a turn.
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
      proxy.resetTurns();
      await work();
      return proxy.turns();
    });
  } finally {
    await slow.close();
    await proxy.close();
  }
}
