import { describe, expect, it } from "vitest";
import { getEnv } from "@/lib/env";
import { crossOriginRefusal, pageContentSecurityPolicy } from "./security";

const env = (proxies: number) => getEnv({ NODE_ENV: "test", PARLEY_TRUSTED_PROXIES: String(proxies) });

describe("crossOriginRefusal", () => {
  const headers = (values: Record<string, string>) => new Headers({ host: "parley.example:3000", ...values });

  it("lets this site's own pages change things, and anything read", () => {
    expect(crossOriginRefusal("POST", headers({ origin: "http://parley.example:3000" }), env(0))).toBeNull();
    expect(crossOriginRefusal("GET", headers({ origin: "https://evil.example" }), env(0))).toBeNull();
    expect(crossOriginRefusal("OPTIONS", headers({ "sec-fetch-site": "cross-site" }), env(0))).toBeNull();
  });

  it("refuses a change from another site, by its Origin or by what the browser says of it", () => {
    expect(crossOriginRefusal("POST", headers({ origin: "https://evil.example" }), env(0))).toMatch(
      /must come from this site's own pages, not from https:\/\/evil.example/,
    );
    expect(crossOriginRefusal("DELETE", headers({ origin: "http://parley.example:4000" }), env(0))).not.toBeNull();
    expect(crossOriginRefusal("PATCH", headers({ origin: "null" }), env(0))).not.toBeNull();
    expect(crossOriginRefusal("PUT", headers({ origin: "not a url" }), env(0))).not.toBeNull();
    expect(crossOriginRefusal("POST", headers({ "sec-fetch-site": "cross-site" }), env(0))).not.toBeNull();
    expect(crossOriginRefusal("POST", headers({ "sec-fetch-site": "same-site" }), env(0))).not.toBeNull();
  });

  it("lets requests from outside a browser through: they carry neither header", () => {
    expect(crossOriginRefusal("POST", headers({}), env(0))).toBeNull();
    expect(crossOriginRefusal("POST", headers({ "sec-fetch-site": "same-origin" }), env(0))).toBeNull();
  });

  it("trusts the forwarded host only behind a trusted proxy", () => {
    const proxied = new Headers({ host: "10.0.0.5:3000", "x-forwarded-host": "parley.example", origin: "https://parley.example" });
    expect(crossOriginRefusal("POST", proxied, env(1))).toBeNull();
    expect(crossOriginRefusal("POST", proxied, env(0))).not.toBeNull();
  });
});

describe("pageContentSecurityPolicy", () => {
  it("allows only nonced scripts, never eval in production, and no framing", () => {
    const policy = pageContentSecurityPolicy("abc123", { development: false, https: false });
    expect(policy).toContain("script-src 'self' 'nonce-abc123' 'strict-dynamic'");
    expect(policy).not.toContain("unsafe-eval");
    expect(policy).not.toMatch(/script-src[^;]*unsafe-inline/);
    expect(policy).toContain("frame-ancestors 'none'");
    expect(policy).toContain("object-src 'none'");
    expect(policy).not.toContain("upgrade-insecure-requests");
    expect(pageContentSecurityPolicy("n", { development: true, https: true })).toMatch(/'unsafe-eval'.*upgrade-insecure-requests/);
  });
});
