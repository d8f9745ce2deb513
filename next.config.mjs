import { DATA_CONTENT_SECURITY_POLICY, SECURITY_HEADERS } from "./scripts/security-headers.mjs";

/** @type {import('next').NextConfig} */
const nextConfig = {
  reactStrictMode: true,
  poweredByHeader: false,
  // Loaded by Node at run time rather than bundled: PGlite ships WebAssembly and data files.
  serverExternalPackages: ["@electric-sql/pglite", "postgres", "drizzle-orm"],
  // The whole project is type-checked by `npm run typecheck` (part of `npm test`).
  typescript: { ignoreBuildErrors: false },
  // On every answer; pages get their Content-Security-Policy (with a nonce) from proxy.ts.
  async headers() {
    return [
      { source: "/:path*", headers: Object.entries(SECURITY_HEADERS).map(([key, value]) => ({ key, value })) },
      { source: "/api/:path*", headers: [{ key: "Content-Security-Policy", value: DATA_CONTENT_SECURITY_POLICY }] },
    ];
  },
};

export default nextConfig;
