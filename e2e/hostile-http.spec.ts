import net from "node:net";
import { API_ROUTES } from "../scripts/api-routes.mjs";
import { expect, test } from "./support/fixtures";
import { createRoomViaApi } from "./support/room-page";

const PORT = Number(process.env.E2E_PORT ?? 3210);
const HOST = `localhost:${PORT}`;

interface RawAnswer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/**
 * Sends one request exactly as written, which no HTTP client would (fetch refuses TRACE and
 * CONNECT, and normalizes paths), and reads the answer until the server closes the connection.
 */
function rawRequest(method: string, target: string, host: string = HOST, extra = ""): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(PORT, "127.0.0.1");
    const chunks: Buffer[] = [];
    socket.setTimeout(15_000, () => socket.destroy(new Error(`${method} ${target}: no answer within 15 s`)));
    socket.on("data", (chunk) => chunks.push(chunk));
    socket.on("error", reject);
    socket.on("close", () => {
      const text = Buffer.concat(chunks).toString("utf8");
      const [head = "", ...rest] = text.split("\r\n\r\n");
      const [statusLine = "", ...lines] = head.split("\r\n");
      const headers = Object.fromEntries(
        lines.map((line) => [line.slice(0, line.indexOf(":")).toLowerCase(), line.slice(line.indexOf(":") + 1).trim()]),
      );
      resolve({ status: Number(statusLine.split(" ")[1] ?? 0), headers, body: rest.join("\r\n\r\n") });
    });
    socket.write(`${method} ${target} HTTP/1.1\r\nHost: ${host}\r\nConnection: close\r\n${extra}Content-Length: 0\r\n\r\n`);
  });
}

function expectSecurityHeaders(answer: RawAnswer, where: string) {
  expect(answer.headers["x-content-type-options"], where).toBe("nosniff");
  expect(answer.headers["x-frame-options"], where).toBe("DENY");
  expect(answer.headers["referrer-policy"], where).toBe("same-origin");
  expect(answer.headers["content-security-policy"], where).toContain("frame-ancestors 'none'");
}

function expectJsonError(answer: RawAnswer, status: number, code: string, where: string) {
  expect([where, answer.status]).toEqual([where, status]);
  expect(answer.headers["content-type"], where).toMatch(/^application\/json/);
  expect(JSON.parse(answer.body), where).toMatchObject({ error: { code, message: expect.any(String) } });
  expectSecurityHeaders(answer, where);
}

/** Each route's path with its parameters filled in. */
const routes = Object.keys(API_ROUTES).map((route) => ({ route, path: route.replace(/\[\w+\]/g, "x1") }));

test("every /api route answers TRACE, TRACK, CONNECT and a made-up method with a JSON 405 naming what the route itself allows", async () => {
  test.setTimeout(180_000);
  expect(routes.length).toBeGreaterThan(50);
  for (const { route, path } of routes) {
    // What the route says it allows, asked in a method it refuses itself.
    const own = await rawRequest("OPTIONS", path);
    expect([route, own.status]).toEqual([route, 405]);
    for (const method of ["TRACE", "TRACK", "CONNECT", "FROBNICATE"]) {
      const answer = await rawRequest(method, path);
      expectJsonError(answer, 405, "method_not_allowed", `${method} ${route}`);
      expect(answer.headers.allow, `${method} ${route}`).toBe(own.headers.allow);
    }
  }
});

test("every /api route answers undecodable %-sequences with a JSON 400 and dot segments with a JSON 404", async () => {
  test.setTimeout(180_000);
  for (const { route, path } of routes) {
    // In place of the route's first parameter, or after its path when it has none.
    const at = (segment: string) => (path.includes("x1") ? path.replace("x1", segment) : `${path}/${segment}`);
    for (const sequence of ["%E0%A4%A", "%zz", "%C0%AE", "%ED%A0%80"]) {
      expectJsonError(await rawRequest("GET", at(sequence)), 400, "bad_request", `${sequence} in ${route}`);
    }
    for (const dots of ["%2e%2e", "%2E%2E", ".."]) {
      expectJsonError(await rawRequest("POST", at(dots)), 404, "not_found", `${dots} in ${route}`);
    }
  }
});

test("pages refuse the same requests with the security headers", async () => {
  for (const method of ["TRACE", "TRACK", "CONNECT"]) {
    const answer = await rawRequest(method, "/");
    expect(answer.status, method).toBe(405);
    expect(answer.headers.allow).toBe("GET, HEAD, POST");
    expectSecurityHeaders(answer, `${method} /`);
  }
  const undecodable = await rawRequest("GET", "/rooms/%E0%A4%A");
  expect(undecodable.status).toBe(400);
  expectSecurityHeaders(undecodable, "undecodable page");
  // Next.js's own answers keep them too.
  const missing = await rawRequest("GET", "/no/such/page");
  expect(missing.status).toBe(404);
  expectSecurityHeaders(missing, "missing page");
});

test("a request naming another host is refused with a JSON 421 before any route runs, changing nothing", async ({ baseURL }) => {
  const roomId = await createRoomViaApi(baseURL!, "Rebinding target");
  const count = async () => ((await (await fetch(`${baseURL}/api/rooms`)).json()) as { rooms: unknown[] }).rooms.length;
  const lastSeq = async () => ((await (await fetch(`${baseURL}/api/rooms/${roomId}`)).json()) as { lastSeq: number }).lastSeq;
  const [before, seqBefore] = [await count(), await lastSeq()];
  const evil = `evil.example:${PORT}`;
  const json = "Content-Type: application/json\r\n";
  const created = await rawRequest("POST", "/api/rooms", evil, `Origin: http://${evil}\r\n${json}`);
  expectJsonError(created, 421, "misdirected_request", "room creation");
  expect(JSON.parse(created.body).error.message).toContain("PARLEY_ALLOWED_HOSTS");
  const seat = await rawRequest("POST", `/api/rooms/${roomId}/seat`, evil, `Origin: http://${evil}\r\n${json}`);
  expectJsonError(seat, 421, "misdirected_request", "seat");
  // The live path too, and pages.
  expectJsonError(await rawRequest("GET", `/api/rooms/${roomId}/events`, evil), 421, "misdirected_request", "event stream");
  const page = await rawRequest("GET", `/rooms/${roomId}`, evil);
  expect(page.status).toBe(421);
  expectSecurityHeaders(page, "page");
  expect(page.body).not.toContain("Rebinding target");
  // No room made, no seat taken: the room's log did not move.
  expect(await count()).toBe(before);
  expect(await lastSeq()).toBe(seqBefore);

  // This machine's own names are answered.
  for (const host of [`localhost:${PORT}`, `127.0.0.1:${PORT}`, `[::1]:${PORT}`]) {
    expect((await rawRequest("GET", "/api/health", host)).status, host).toBe(200);
  }
});
