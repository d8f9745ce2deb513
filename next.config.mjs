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
      {
        source: "/:path*",
        headers: [
          { key: "X-Content-Type-Options", value: "nosniff" },
          // Room links are how spectators get in: they never leave in a Referer.
          { key: "Referrer-Policy", value: "same-origin" },
          { key: "X-Frame-Options", value: "DENY" },
        ],
      },
      // An API answer is data, never a page (docs/behaviour/limits.md).
      { source: "/api/:path*", headers: [{ key: "Content-Security-Policy", value: "default-src 'none'; frame-ancestors 'none'" }] },
    ];
  },
};

export default nextConfig;
