import { type Env, getEnv } from "@/lib/env";

/**
 * The pages' Content-Security-Policy. Scripts: only this site's, and only those carrying the
 * request's nonce (Next.js puts it on its own scripts) or loaded by one (`strict-dynamic`); no
 * inline script of anyone else's. Styles allow inline `style` attributes: React Flow positions
 * every node, edge and the viewport with them, and React writes server-rendered `style` props
 * as attributes, which no nonce or hash can cover; an attacker who could inject markup could at
 * worst restyle the page, not run code. `frame-ancestors 'none'`: no site may frame Parley.
 * `next dev` needs `eval` for its error overlays; production never does.
 */
export function pageContentSecurityPolicy(nonce: string, options: { development: boolean; https: boolean }): string {
  return [
    "default-src 'self'",
    `script-src 'self' 'nonce-${nonce}' 'strict-dynamic'${options.development ? " 'unsafe-eval'" : ""}`,
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data: blob:",
    "font-src 'self' data:",
    "connect-src 'self'",
    "object-src 'none'",
    "base-uri 'self'",
    "form-action 'self'",
    "frame-ancestors 'none'",
    ...(options.https ? ["upgrade-insecure-requests"] : []),
  ].join("; ");
}

const SAFE_METHODS = new Set(["GET", "HEAD", "OPTIONS"]);

/**
 * Why a request that changes something is refused for coming from another site, or null when
 * it may go on. Browsers name the page's origin (`Origin`) on every such request, and say
 * whether it is another site's (`Sec-Fetch-Site`); it must be this server's own host, as the
 * client reached it (`Host`, or `X-Forwarded-Host` from a trusted proxy). Requests from outside
 * a browser carry neither and are not a cross-site forgery; SameSite cookies stay the first line.
 */
export function crossOriginRefusal(method: string, headers: Pick<Headers, "get">, env: Env = getEnv()): string | null {
  if (SAFE_METHODS.has(method.toUpperCase())) return null;
  const origin = headers.get("origin");
  if (origin) {
    let host: string | null = null;
    try {
      host = origin === "null" ? null : new URL(origin).host;
    } catch {
      host = null;
    }
    const hosts = [headers.get("host"), env.PARLEY_TRUSTED_PROXIES > 0 ? headers.get("x-forwarded-host")?.split(",")[0]?.trim() : null];
    if (host && hosts.includes(host)) return null;
    return `${method} requests must come from this site's own pages, not from ${origin}.`;
  }
  const site = headers.get("sec-fetch-site");
  if (site === "cross-site" || site === "same-site") return `${method} requests must come from this site's own pages.`;
  return null;
}
