/**
 * Model endpoints as Parley keeps and compares them. Pure (no network, no Node modules), so
 * that the environment's validation can use it wherever the environment is read.
 */

/**
 * An endpoint as Parley keeps it — its origin and path, no trailing slash — or why it cannot
 * be one: only http(s) addresses, and none carrying a user name, password, query or fragment
 * (a provider's client appends its own paths, and credentials belong in a key variable).
 */
export function normalizeEndpoint(text: string): { url: string } | { error: string } {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return { error: `must be an http(s) address, not ${JSON.stringify(text)}` };
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") return { error: `must be an http(s) address, not ${JSON.stringify(text)}` };
  if (url.username || url.password) return { error: "must not carry a user name or password" };
  if (url.search || url.hash || text.includes("?") || text.includes("#"))
    return { error: "must be an address without a query (?…) or fragment (#…)" };
  return { url: `${url.origin}${url.pathname}`.replace(/\/+$/, "") };
}

/** Two endpoints name the same place once normalised. */
export function sameEndpoint(a: string | undefined, b: string | undefined): boolean {
  if (!a || !b) return false;
  const left = normalizeEndpoint(a);
  const right = normalizeEndpoint(b);
  return "url" in left && "url" in right && left.url === right.url;
}

/**
 * Whether an endpoint lies under a prefix: the same scheme, host and port, and a path that is the
 * prefix's or below it, segment by segment (`https://llm.example.com/v1` covers
 * `https://llm.example.com/v1/team` but not `https://llm.example.com/v10` nor
 * `https://llm.example.com.evil.net/v1`).
 */
export function endpointUnder(endpoint: string, prefix: string): boolean {
  const inner = normalizeEndpoint(endpoint);
  const outer = normalizeEndpoint(prefix);
  if (!("url" in inner) || !("url" in outer)) return false;
  const a = new URL(`${inner.url}/`);
  const b = new URL(`${outer.url}/`);
  return a.protocol === b.protocol && a.host === b.host && a.pathname.startsWith(b.pathname);
}
