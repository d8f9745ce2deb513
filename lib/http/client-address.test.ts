import { afterEach, describe, expect, it } from "vitest";
import { getEnv } from "@/lib/env";
import { PEER_ADDRESS_HEADER, clientAddress, normalizeAddress } from "./client-address";

const STAMPED = Symbol.for("parley.peerAddressStamped");
const env = (proxies: number) => getEnv({ NODE_ENV: "test", PARLEY_TRUSTED_PROXIES: String(proxies) });

afterEach(() => {
  delete (globalThis as Record<symbol, unknown>)[STAMPED];
});

describe("clientAddress", () => {
  it("is the connection's own address when no proxy is trusted, whatever the client claims", () => {
    const headers = new Headers({ "x-forwarded-for": "6.6.6.6" });
    expect(clientAddress(headers, "203.0.113.9", env(0))).toBe("203.0.113.9");
    (globalThis as Record<symbol, unknown>)[STAMPED] = true;
    headers.set(PEER_ADDRESS_HEADER, "::ffff:203.0.113.9");
    expect(clientAddress(headers, null, env(0))).toBe("203.0.113.9");
  });

  it("ignores a peer address header the server did not stamp itself", () => {
    const headers = new Headers({ [PEER_ADDRESS_HEADER]: "1.1.1.1", "x-forwarded-for": "203.0.113.9" });
    expect(clientAddress(headers, null, env(0))).toBe("203.0.113.9");
  });

  it("is the entry a trusted proxy appended, not one the client wrote before it", () => {
    const headers = { "x-forwarded-for": "6.6.6.6, 198.51.100.7" };
    expect(clientAddress(headers, "10.0.0.2", env(1))).toBe("198.51.100.7");
    expect(clientAddress({ "x-forwarded-for": "6.6.6.6, 198.51.100.7, 10.0.0.3" }, "10.0.0.2", env(2))).toBe("198.51.100.7");
    // Without the connection's address, the proxy's own entry is the last one.
    expect(clientAddress(new Headers(headers), null, env(1))).toBe("198.51.100.7");
  });

  it("is 'unknown' when nothing says where the request came from", () => {
    expect(clientAddress(new Headers(), null, env(0))).toBe("unknown");
  });
});

describe("normalizeAddress", () => {
  it("counts an IPv6 address by its /64 network and an IPv4-mapped one as IPv4", () => {
    expect(normalizeAddress("2001:db8:1:2:3:4:5:6")).toBe("2001:db8:1:2::/64");
    expect(normalizeAddress("2001:db8::1")).toBe("2001:db8:0:0::/64");
    expect(normalizeAddress("[2001:db8:1:2::9]")).toBe("2001:db8:1:2::/64");
    expect(normalizeAddress("::ffff:192.0.2.1")).toBe("192.0.2.1");
    expect(normalizeAddress(" 192.0.2.1 ")).toBe("192.0.2.1");
  });
});
