import { describe, expect, it } from "vitest";
import { allowedHosts, frontDoorRefusal, hostName, rawRefusal, refusalAnswer, unparsedRefusal } from "./front-door.mjs";

const local = allowedHosts({});
const door = (method: string, target: string, host: string | undefined = "localhost:3000", allowed = local) =>
  frontDoorRefusal({ method, target, host }, allowed);

describe("the front door", () => {
  it("answers to localhost and loopback addresses by default, and to no other name", () => {
    for (const host of [
      "localhost",
      "localhost:3000",
      "LOCALHOST.",
      "app.localhost:80",
      "127.0.0.1:3000",
      "127.9.8.7",
      "[::1]:3000",
      "[::ffff:127.0.0.1]",
    ]) {
      expect(door("GET", "/", host), host).toBeNull();
    }
    for (const host of [
      "evil.example:3000",
      "localhost.evil.example",
      "192.168.1.20:3000",
      "0.0.0.0:3000",
      "[::]:3000",
      "10.0.0.1",
      "a b",
      "x@localhost",
    ]) {
      expect(door("POST", "/api/rooms", host)?.status, host).toBe(421);
    }
    const refused = door("POST", "/api/rooms/abc/seat", "evil.example:3000")!;
    expect(refused).toMatchObject({ api: true, code: "misdirected_request" });
    expect(refused.message).toContain('"evil.example:3000"');
    expect(refused.message).toContain("PARLEY_ALLOWED_HOSTS");
  });

  it("answers to the names PARLEY_ALLOWED_HOSTS lists, the public URL's and the address it listens on", () => {
    const allowed = allowedHosts({
      PARLEY_ALLOWED_HOSTS: " parley.internal , .team.example,10.1.2.3, [fd00::1] ",
      PARLEY_PUBLIC_URL: "https://Parley.Example.com/rooms",
      HOST: "192.168.1.20",
    });
    for (const host of [
      "parley.internal:3000",
      "team.example",
      "a.team.example",
      "10.1.2.3:3000",
      "[fd00::1]:80",
      "parley.example.com",
      "192.168.1.20:3000",
      "localhost",
    ]) {
      expect(door("GET", "/", host, allowed), host).toBeNull();
    }
    for (const host of ["evilteam.example", "parley.example.com.evil", "10.1.2.4"])
      expect(door("GET", "/", host, allowed)?.status, host).toBe(421);
    // Listening on every interface names no host.
    expect(door("GET", "/", "0.0.0.0:3000", allowedHosts({ HOST: "0.0.0.0" }))?.status).toBe(421);
    expect(door("GET", "/", "anything.example", allowedHosts({ PARLEY_ALLOWED_HOSTS: "*" }))).toBeNull();
  });

  it("takes the host from a target in absolute form, and refuses a request that names none", () => {
    expect(door("GET", "http://evil.example/api/health", "localhost")?.status).toBe(421);
    expect(door("GET", "http://localhost:3000/api/health", "evil.example")).toBeNull();
    expect(frontDoorRefusal({ method: "GET", target: "/api/health", host: undefined }, local)).toMatchObject({ status: 400, api: true });
    expect(door("GET", "/api/health", "")).toMatchObject({ status: 400 });
  });

  it("refuses methods Next.js cannot take with a 405 naming what the route serves, and passes the rest on", () => {
    for (const method of ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"]) expect(door(method, "/api/rooms")).toBeNull();
    for (const method of ["TRACE", "TRACK", "CONNECT", "PROPFIND", "FROBNICATE"]) {
      expect(door(method, "/api/rooms"), method).toMatchObject({ status: 405, api: true, headers: { Allow: "GET, POST" } });
    }
    // A named segment wins over a parameter, as in Next.js's routing.
    expect(door("TRACE", "/api/rooms/import")?.headers).toEqual({ Allow: "POST" });
    expect(door("TRACE", "/api/rooms/r1?x=1")?.headers).toEqual({ Allow: "GET" });
    expect(door("TRACE", "/api/rooms/r1/nodes/n1")?.headers).toEqual({ Allow: "PATCH, DELETE" });
    expect(door("TRACE", "/api/no/such/thing")).toMatchObject({ status: 404, code: "not_found" });
    expect(door("TRACE", "/rooms/r1")).toMatchObject({ status: 405, api: false, headers: { Allow: "GET, HEAD, POST" } });
  });

  it("refuses %-sequences that do not decode with a 400, and . or .. segments with a 404", () => {
    for (const target of ["/api/rooms/%E0%A4%A", "/api/rooms/%zz", "/api/rooms/%C0%AE", "/api/rooms/%ED%A0%80", "/api/%"]) {
      expect(door("GET", target), target).toMatchObject({ status: 400, api: true, code: "bad_request" });
    }
    for (const target of ["/api/rooms/%2e%2e", "/api/rooms/%2E%2E/seat", "/api/rooms/./x", "/api/../admin", "/api/rooms/.%2e"]) {
      expect(door("GET", target), target).toMatchObject({ status: 404, api: true, code: "not_found" });
    }
    expect(door("GET", "/rooms/%zz")).toMatchObject({ status: 400, api: false });
    // Encoded text that decodes is a path like any other; the query is not the door's.
    expect(door("GET", "/api/rooms/caf%C3%A9?after=%zz")).toBeNull();
    expect(door("GET", "/api/rooms/a..b")).toBeNull();
  });

  it("answers in JSON on /api and in text elsewhere, always with the security headers and nothing to keep alive", () => {
    const api = refusalAnswer(door("TRACE", "/api/rooms")!);
    expect(api.status).toBe(405);
    expect(JSON.parse(api.body)).toEqual({ error: { code: "method_not_allowed", message: "TRACE is not allowed here; use GET, POST." } });
    expect(api.headers).toMatchObject({
      "Content-Type": "application/json",
      "Content-Security-Policy": "default-src 'none'; frame-ancestors 'none'",
      "X-Content-Type-Options": "nosniff",
      "X-Frame-Options": "DENY",
      "Referrer-Policy": "same-origin",
      Allow: "GET, POST",
      Connection: "close",
    });
    const page = refusalAnswer(door("GET", "/", "evil.example")!);
    expect(page.headers["Content-Type"]).toMatch(/^text\/plain/);
    expect(page.headers["X-Content-Type-Options"]).toBe("nosniff");
    const raw = rawRefusal(door("CONNECT", "/api/health")!);
    expect(raw).toMatch(/^HTTP\/1\.1 405 Method Not Allowed\r\n/);
    expect(raw).toMatch(/\r\nAllow: GET\r\n/);
    expect(raw.endsWith('{"error":{"code":"method_not_allowed","message":"CONNECT is not allowed here; use GET."}}')).toBe(true);
  });

  it("reads what it can of a request the HTTP parser refused", () => {
    const packet = (text: string) => Buffer.from(text, "latin1");
    expect(unparsedRefusal("HPE_INVALID_METHOD", packet("TRACK /api/rooms HTTP/1.1\r\nHost: localhost:3000\r\n\r\n"), local)).toMatchObject(
      {
        status: 405,
        headers: { Allow: "GET, POST" },
      },
    );
    expect(unparsedRefusal("HPE_INVALID_METHOD", packet("TRACK /api/rooms HTTP/1.1\r\nHost: evil.example\r\n\r\n"), local).status).toBe(
      421,
    );
    expect(unparsedRefusal("HPE_INVALID_HEADER_TOKEN", packet("GET /api/rooms HTTP/1.1\r\nBad Header\r\n"), local)).toMatchObject({
      status: 400,
      api: true,
    });
    expect(unparsedRefusal("HPE_HEADER_OVERFLOW", undefined, local)).toMatchObject({ status: 431, api: false });
  });

  it("reads host names as the Host header writes them", () => {
    expect(hostName("Example.COM:8080")).toBe("example.com");
    expect(hostName("[::1]:3000")).toBe("::1");
    expect(hostName("exa mple.com")).toBeNull();
    expect(hostName("user@example.com")).toBeNull();
  });
});
