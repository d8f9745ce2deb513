// The security headers every answer carries: Next.js adds them to what it serves
// (next.config.mjs), and the front door to what it refuses before Next.js sees it
// (scripts/front-door.mjs). Pages add their own Content-Security-Policy, with a nonce (proxy.ts).

/** On every answer, page or API. */
export const SECURITY_HEADERS = {
  "X-Content-Type-Options": "nosniff",
  // Room links are how spectators get in: they never leave in a Referer.
  "Referrer-Policy": "same-origin",
  "X-Frame-Options": "DENY",
};

/** An API answer is data, never a page (docs/behaviour/limits.md); nor is a refusal. */
export const DATA_CONTENT_SECURITY_POLICY = "default-src 'none'; frame-ancestors 'none'";
