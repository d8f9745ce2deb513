// Serves the production build on a fresh embedded database for the end-to-end tests.
import fs from "node:fs";
import path from "node:path";
import { serveNextHere } from "../../scripts/next-start.mjs";

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), "..", "..");
const dataDir = path.join(root, ".test-data", "e2e");
fs.rmSync(dataDir, { recursive: true, force: true });
const port = process.env.E2E_PORT ?? "3210";
const env = {
  ...process.env,
  PARLEY_DATA_DIR: dataDir,
  ADMIN_TOKEN: "e2e-admin-token-0123456789",
  PARLEY_DEMO_ROOM: "0",
  // Agents type quickly here: the tests watch what they do, not how fast.
  PARLEY_SCRIPT_PACE_MS: "15",
  PARLEY_SCRIPT_THINK_MS: "100",
  // Every spec's browser and requests come from this one address, and some write hundreds of
  // notes at once from one seat: rate limits stay out of the way here and are tested on their
  // own (lib/limits/rate-limits.int.test.ts).
  PARLEY_ROOMS_PER_HOUR: "1000",
  PARLEY_IMPORTS_PER_HOUR: "1000",
  PARLEY_SEATS_PER_HOUR: "1000",
  PARLEY_RUN_STARTS_PER_MINUTE: "1000",
  PARLEY_SEAT_WRITES_PER_MINUTE: "0",
  // The stand-in model and the MCP server the team-tools spec serves (e2e/support/constants.ts).
  PARLEY_IMPORT_ENDPOINTS: `http://127.0.0.1:${Number(port) + 1081}/v1,http://127.0.0.1:${Number(port) + 1082}/mcp`,
  PARLEY_MCP_COMMANDS: "",
  PORT: port,
};
delete env.DATABASE_URL;
// Only the offline model, whatever the shell has set: a paid provider's key would let only admins
// create rooms, and the specs create theirs as anyone does.
for (const name of Object.keys(env)) {
  if (/_(API_KEY|BASE_URL)$/.test(name)) delete env[name];
}
delete env.PARLEY_ROOM_CREATION;
// A key variable imported teams may name counts as a paid provider's key too.
delete env.PARLEY_IMPORT_KEY_VARIABLES;
// The production server, served in this process as `npm start` serves it.
for (const name of Object.keys(process.env)) if (!(name in env)) delete process.env[name];
Object.assign(process.env, env);
await serveNextHere({ port });
