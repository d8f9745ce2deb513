// What Parley refuses before Next.js sees a request (scripts/server-preload.mjs puts it in front):
// a `Host` that is not one of this instance's names, which is how a page on another site reaches a
// local instance by DNS rebinding; methods Next.js cannot take (its web `Request` throws on
// TRACE and CONNECT and the HTTP parser on any method it does not know, both answered with HTML or
// nothing, without the security headers); paths whose `%`-sequences do not decode; and `.` or `..`
// segments. Each refusal carries the security headers, in JSON on /api and as text elsewhere.
// Plain JavaScript outside the bundle: it runs in the server process before the app is loaded.
import { API_ROUTES } from "./api-routes.mjs";
import { DATA_CONTENT_SECURITY_POLICY, SECURITY_HEADERS } from "./security-headers.mjs";

/** The methods passed on to Next.js; every route answers each of them itself (a 405 in JSON where it serves none). */
const PASSED_METHODS = new Set(["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"]);

/** What a page answers: GET (and HEAD), and POST for its server actions. */
const PAGE_METHODS = "GET, HEAD, POST";

const ROUTES = Object.entries(API_ROUTES).map(([path, allow]) => ({ segments: path.split("/").slice(1), allow }));

/** A host name or address as compared: lower case, no brackets around IPv6, no trailing dot. */
function normalizeHost(name) {
  return name
    .trim()
    .toLowerCase()
    .replace(/^\[|\]$/g, "")
    .replace(/\.$/, "");
}

/** The name in a `Host` header (or an authority), without its port; null when it is not one. */
export function hostName(value) {
  const trimmed = value.trim();
  const bracketed = trimmed.match(/^\[([0-9a-f:.]+)\](?::\d{1,5})?$/i);
  if (bracketed) return normalizeHost(bracketed[1]);
  const plain = trimmed.match(/^([a-z0-9._~-]+)(?::\d{1,5})?$/i);
  return plain ? normalizeHost(plain[1]) : null;
}

const isLoopback = (name) =>
  name === "localhost" ||
  name.endsWith(".localhost") ||
  /^127(?:\.\d{1,3}){3}$/.test(name) ||
  name === "::1" ||
  /^::ffff:127(?:\.\d{1,3}){3}$/.test(name);

const WILDCARD_ADDRESSES = new Set(["", "0.0.0.0", "::", "0:0:0:0:0:0:0:0"]);

/**
 * The host names this instance answers to: localhost and loopback addresses always; each entry of
 * `PARLEY_ALLOWED_HOSTS` (a name, an address, `.example.com` for a domain and every name under it,
 * or `*` for any host, when a proxy in front checks it); the public URL's host (`PARLEY_PUBLIC_URL`);
 * and the address the server listens on (`HOST`) when it names one rather than every interface.
 */
export function allowedHosts(env) {
  const names = new Set();
  const domains = [];
  let any = false;
  for (const entry of (env.PARLEY_ALLOWED_HOSTS ?? "").split(",")) {
    const name = normalizeHost(entry);
    if (!name) continue;
    if (name === "*") any = true;
    else if (name.startsWith(".")) domains.push(name);
    else names.add(hostName(name) ?? name);
  }
  if (env.PARLEY_PUBLIC_URL) {
    try {
      names.add(normalizeHost(new URL(env.PARLEY_PUBLIC_URL).hostname));
    } catch {
      // lib/env.ts refuses a malformed one when the app starts.
    }
  }
  const bound = normalizeHost(env.HOST ?? "");
  if (!WILDCARD_ADDRESSES.has(bound)) names.add(bound);
  return (name) =>
    any || isLoopback(name) || names.has(name) || domains.some((domain) => name.endsWith(domain) || name === domain.slice(1));
}

/** The methods the /api route at these (still encoded) segments serves, or null for no route. */
function routeMethods(segments) {
  let best = null;
  for (const route of ROUTES) {
    if (route.segments.length !== segments.length) continue;
    const statics = [];
    let matches = true;
    for (let index = 0; index < segments.length && matches; index++) {
      const part = route.segments[index];
      const dynamic = part.startsWith("[");
      matches = dynamic ? segments[index] !== "" : part === segments[index];
      statics.push(dynamic ? 0 : 1);
    }
    // As Next.js routes: a named segment wins over a parameter at the first place they differ.
    if (matches && (!best || statics.join("") > best.statics.join(""))) best = { allow: route.allow, statics };
  }
  return best?.allow ?? null;
}

function refusal(api, status, code, message, headers = {}) {
  return { api, status, code, message, headers };
}

/**
 * Why the front door refuses a request (`method`, its target as sent, its `Host` header), or null
 * to pass it on to Next.js. `isAllowedHost` is `allowedHosts(env)`.
 */
export function frontDoorRefusal({ method, target, host }, isAllowedHost) {
  let authority = host;
  let path = target;
  // The absolute form (`GET http://host/path`) names the host in the target, which then counts.
  const absolute = target.match(/^https?:\/\/([^/?#]*)([^?#]*)/i);
  if (absolute) {
    authority = absolute[1];
    path = absolute[2] || "/";
  } else {
    path = target.split(/[?#]/, 1)[0];
  }
  const api = path === "/api" || path.startsWith("/api/");
  if (authority === undefined || authority === "") return refusal(api, 400, "bad_request", "A request must name its host (Host).");
  const name = hostName(authority);
  if (name === null || !isAllowedHost(name)) {
    return refusal(
      api,
      421,
      "misdirected_request",
      `This server does not answer to ${JSON.stringify(authority)}. An admin can add it to PARLEY_ALLOWED_HOSTS or set PARLEY_PUBLIC_URL.`,
    );
  }
  if (!path.startsWith("/")) return refusal(api, 400, "bad_request", "The request target must be a path.");
  const segments = path.split("/").slice(1);
  for (const segment of segments) {
    let decoded;
    try {
      decoded = decodeURIComponent(segment);
    } catch {
      return refusal(api, 400, "bad_request", "The path holds a %-sequence that is not UTF-8.");
    }
    if (decoded === "." || decoded === "..") return refusal(api, 404, "not_found", `There is nothing at ${path}.`);
  }
  if (PASSED_METHODS.has(method)) return null;
  if (!api) return refusal(api, 405, "method_not_allowed", `${method} is not allowed here; use ${PAGE_METHODS}.`, { Allow: PAGE_METHODS });
  const allow = routeMethods(segments);
  if (!allow) return refusal(api, 404, "not_found", `There is no API at ${path}.`);
  return refusal(api, 405, "method_not_allowed", `${method} is not allowed here; use ${allow}.`, { Allow: allow });
}

/** A refusal's status line, headers and body. */
export function refusalAnswer(refused) {
  const body = refused.api ? JSON.stringify({ error: { code: refused.code, message: refused.message } }) : `${refused.message}\n`;
  const headers = {
    ...SECURITY_HEADERS,
    "Content-Security-Policy": DATA_CONTENT_SECURITY_POLICY,
    "Content-Type": refused.api ? "application/json" : "text/plain; charset=utf-8",
    "Content-Length": String(Buffer.byteLength(body)),
    "Cache-Control": "no-store",
    // The request's body, if any, is not read: the connection ends with the answer.
    Connection: "close",
    ...refused.headers,
  };
  return { status: refused.status, headers, body };
}

const REASONS = {
  400: "Bad Request",
  404: "Not Found",
  405: "Method Not Allowed",
  408: "Request Timeout",
  421: "Misdirected Request",
  431: "Request Header Fields Too Large",
};

/** A refusal as raw HTTP/1.1, for a socket no response object owns (CONNECT, a request that did not parse). */
export function rawRefusal(refused) {
  const { status, headers, body } = refusalAnswer(refused);
  const lines = Object.entries(headers).map(([name, value]) => `${name}: ${value}`);
  return `HTTP/1.1 ${status} ${REASONS[status] ?? "Error"}\r\n${lines.join("\r\n")}\r\n\r\n${body}`;
}

/**
 * What to answer a request the HTTP parser gave up on (`rawPacket`: the bytes it had): an unknown
 * method is refused as any method Next.js cannot take (with its route's `Allow`), anything else as
 * a bad request, in JSON when the target was under /api.
 */
export function unparsedRefusal(code, rawPacket, isAllowedHost) {
  const head = rawPacket ? rawPacket.toString("latin1") : "";
  const [method = "", target = ""] = head.split("\r\n", 1)[0].split(" ");
  const host = head.match(/\r\nhost:[ \t]*([^\r\n]*)/i)?.[1];
  const api = target === "/api" || target.startsWith("/api/") || target.startsWith("/api?");
  if (code === "HPE_INVALID_METHOD" && /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(method)) {
    const refused = frontDoorRefusal({ method, target, host }, isAllowedHost);
    if (refused) return refused;
  }
  if (code === "HPE_HEADER_OVERFLOW") return refusal(api, 431, "request_header_fields_too_large", "The request's headers are too large.");
  if (code === "ERR_HTTP_REQUEST_TIMEOUT") return refusal(api, 408, "request_timeout", "The request took too long to arrive.");
  return refusal(api, 400, "bad_request", "The request is not valid HTTP.");
}
