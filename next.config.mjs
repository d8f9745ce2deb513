/** @type {import('next').NextConfig} */
const nextConfig = {
  reactStrictMode: true,
  poweredByHeader: false,
  // Loaded by Node at run time rather than bundled: PGlite ships WebAssembly and data files.
  serverExternalPackages: ["@electric-sql/pglite", "postgres", "drizzle-orm"],
  // The whole project is type-checked by `npm run typecheck` (part of `npm test`).
  typescript: { ignoreBuildErrors: false },
};

export default nextConfig;
