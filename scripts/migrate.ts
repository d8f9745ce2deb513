import { getDatabase } from "@/db";

// Applies the committed migrations to the configured database (PostgreSQL or the embedded one).
try {
  const database = await getDatabase();
  console.log(`Migrations applied (${database.driver === "pglite" ? "embedded PGlite" : "PostgreSQL"}).`);
  await database.close();
  process.exit(0);
} catch (error) {
  console.error((error as Error).message);
  process.exit(1);
}
