import type { IncomingHttpHeaders } from "node:http";
import { type Env, getEnv } from "@/lib/env";

/**
 * The address of the connection a request came in on, as `scripts/server-preload.mjs` stamps it
 * on every request before Next.js sees it (replacing any copy the client sent).
 */
export const PEER_ADDRESS_HEADER = "x-parley-peer-address";

/** Set by that preload: only then is the header Parley's own rather than whatever the client sent. */
const STAMPED = Symbol.for("parley.peerAddressStamped");

function peerStamped(): boolean {
  return (globalThis as Record<symbol, unknown>)[STAMPED] === true;
}

type HeaderSource = Headers | IncomingHttpHeaders;

function header(headers: HeaderSource, name: string): string | undefined {
  if (headers instanceof Headers) return headers.get(name) ?? undefined;
  const value = headers[name];
  return Array.isArray(value) ? value.join(",") : value;
}

/**
 * One client, however it writes its address: IPv4-mapped IPv6 as IPv4, and an IPv6 address as
 * its /64 network, which one household or server is usually given whole.
 */
export function normalizeAddress(address: string): string {
  const bare = address
    .trim()
    .replace(/^\[|\]$/g, "")
    .replace(/%.*$/, "");
  const mapped = bare.match(/^::ffff:(\d+\.\d+\.\d+\.\d+)$/i);
  if (mapped) return mapped[1]!;
  if (!bare.includes(":")) return bare;
  const [head = "", tail = ""] = bare.toLowerCase().split("::");
  const left = head ? head.split(":") : [];
  const right = bare.includes("::") ? (tail ? tail.split(":") : []) : [];
  const groups = bare.includes("::") ? [...left, ...Array(Math.max(0, 8 - left.length - right.length)).fill("0"), ...right] : left;
  return `${groups
    .slice(0, 4)
    .map((group) => group.replace(/^0+(?=.)/, ""))
    .join(":")}::/64`;
}

/**
 * The client's address, for limits per address. Parley trusts `PARLEY_TRUSTED_PROXIES` reverse
 * proxies in front of it, each of which appends the address it was reached from to
 * `X-Forwarded-For`; the client is the entry just before theirs. With none, it is the connection's
 * own address: the socket's (`socketAddress`, on Pages API routes) or the one stamped on the
 * request. Without either (`next dev`), Next.js fills `X-Forwarded-For` with the socket's address
 * only when the client sent none, so a client could then claim any address.
 */
export function clientAddress(headers: HeaderSource, socketAddress?: string | null, env: Env = getEnv()): string {
  const peer = socketAddress ?? (peerStamped() ? header(headers, PEER_ADDRESS_HEADER) : undefined);
  const forwarded = (header(headers, "x-forwarded-for") ?? "")
    .split(",")
    .map((entry) => entry.trim())
    .filter(Boolean);
  const hops = env.PARLEY_TRUSTED_PROXIES;
  const chain = peer ? [...forwarded, peer] : forwarded;
  const index = peer ? chain.length - 1 - hops : chain.length - Math.max(hops, 1);
  const address = chain[Math.max(0, index)];
  return address ? normalizeAddress(address) : "unknown";
}
