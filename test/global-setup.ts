import postgres from "postgres";
import type { TestProject } from "vitest/node";
import { migrateDatabase, openPostgres } from "@/db/client";
import { assertLocalDatabaseUrl, databaseUrlFor } from "./local-database-url";

const TEMPLATE_DATABASE = `parley_test_template_${process.pid}`;

declare module "vitest" {
  export interface ProvidedContext {
    /** The migrated PostgreSQL database each test file clones (PostgreSQL runs only). */
    templateDatabase: string;
  }
}

/** On PostgreSQL: migrate one template database; every test file clones it (fast) and drops its clone. */
export default async function setup(project: TestProject) {
  if (project.config.env?.PARLEY_TEST_DRIVER !== "postgres") return;
  const baseUrl = process.env.DATABASE_URL;
  if (!baseUrl) throw new Error("The PostgreSQL test project needs DATABASE_URL.");
  assertLocalDatabaseUrl(baseUrl);
  const admin = postgres(baseUrl, { max: 1, onnotice: () => {} });
  await admin.unsafe(`drop database if exists ${TEMPLATE_DATABASE} with (force)`);
  await admin.unsafe(`create database ${TEMPLATE_DATABASE}`);
  const template = await openPostgres({ url: databaseUrlFor(baseUrl, TEMPLATE_DATABASE), max: 1 });
  await migrateDatabase(template);
  await template.close();
  project.provide("templateDatabase", TEMPLATE_DATABASE);
  return async () => {
    await admin.unsafe(`drop database if exists ${TEMPLATE_DATABASE} with (force)`);
    await admin.end();
  };
}
