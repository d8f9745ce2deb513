import path from "node:path";
import { defineConfig } from "vitest/config";

const root = path.dirname(new URL(import.meta.url).pathname);
const alias = { "@": root };
const ignored = ["node_modules/**", ".next/**", "e2e/**", ".data/**", ".test-data/**"];

const integration = (driver: "pglite" | "postgres", include: string[]) => ({
  resolve: { alias },
  test: {
    name: `integration-${driver}`,
    include,
    exclude: ignored,
    env: { PARLEY_TEST_DRIVER: driver },
    globalSetup: ["test/global-setup.ts"],
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
});

/**
 * Unit tests (fast, no database, no processes), the integration tests once on PGlite and,
 * when DATABASE_URL points at a PostgreSQL server, once more on PostgreSQL (the same files,
 * a fresh database each). Files ending in `.pg.test.ts` need several real connections and
 * run on PostgreSQL only; files ending in `.process.test.ts` start processes of their own
 * and run once, beside the integration tests.
 */
export default defineConfig({
  resolve: { alias },
  test: {
    projects: [
      {
        resolve: { alias },
        test: {
          name: "unit",
          include: ["**/*.test.ts"],
          exclude: [...ignored, "**/*.int.test.ts", "**/*.pg.test.ts", "**/*.process.test.ts"],
          // Unit tests keep no state between files (each restores the timers and globals it
          // stubs), so they share one module graph: isolating each file in a fresh one spent
          // more time loading the same modules again than running the tests.
          isolate: false,
        },
      },
      {
        resolve: { alias },
        test: { name: "processes", include: ["**/*.process.test.ts"], exclude: ignored, testTimeout: 30_000 },
      },
      integration("pglite", ["**/*.int.test.ts"]),
      ...(process.env.DATABASE_URL ? [integration("postgres", ["**/*.int.test.ts", "**/*.pg.test.ts"])] : []),
    ],
  },
});
