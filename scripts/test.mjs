#!/usr/bin/env node
// Runs every test: type check, format and lint, layer rules and import cycles, unused files, exports and
// dependencies, unit, integration (PGlite, and PostgreSQL when DATABASE_URL is set), then the end-to-end tests in
// Chromium against a production build.
import { spawnSync } from "node:child_process";
import path from "node:path";

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), "..");
const bin = (name) => path.join(root, "node_modules", ".bin", name);

function run(title, command, args, env = {}) {
  console.log(`\n━━ ${title} ━━`);
  const started = Date.now();
  const result = spawnSync(command, args, { cwd: root, stdio: "inherit", env: { ...process.env, ...env } });
  const seconds = ((Date.now() - started) / 1000).toFixed(1);
  if (result.status !== 0) {
    console.error(`\n✘ ${title} failed after ${seconds}s`);
    process.exit(result.status ?? 1);
  }
  console.log(`✔ ${title} (${seconds}s)`);
}

if (!process.env.DATABASE_URL) {
  console.warn(
    "\n! DATABASE_URL is not set: the integration tests run on PGlite only. Set it to a local PostgreSQL\n" +
      "  server (e.g. postgres://postgres@127.0.0.1:5432/postgres) to run them on PostgreSQL as well.",
  );
}

run("Type check", bin("tsc"), ["--noEmit", "-p", "."]);
run("Format and lint", bin("biome"), ["check", "."]);
run("Layer rules and import cycles", "npm", ["run", "--silent", "check:deps"]);
run("Unused files, exports and dependencies", "npm", ["run", "--silent", "check:unused"]);
run("Unit and integration tests", bin("vitest"), ["run"]);
run("Production build", bin("next"), ["build"]);
run("End-to-end tests (Chromium)", bin("playwright"), ["test"]);
console.log("\nAll tests passed.");
