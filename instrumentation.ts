/**
 * Runs once when a Parley server starts: opens and migrates the database, starts this
 * instance's live bus, makes sure there is an admin token and a room to land in.
 */
export async function register() {
  if (process.env.NEXT_RUNTIME !== "nodejs") return;
  if (process.env.NEXT_PHASE === "phase-production-build") return;
  const { startServer } = await import("./lib/server-start");
  await startServer();
}
