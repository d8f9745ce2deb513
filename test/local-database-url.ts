/** Tests create and drop databases: refuse anything that is not on this machine. */
export function assertLocalDatabaseUrl(url: string): URL {
  const parsed = new URL(url);
  const host = parsed.hostname.replace(/^\[|\]$/g, "");
  const local = host === "" || host === "localhost" || host === "127.0.0.1" || host === "::1";
  if (!local) {
    throw new Error(`Tests refuse to run against a database on ${host}; point DATABASE_URL at a local server.`);
  }
  return parsed;
}

export function databaseUrlFor(base: string, database: string): string {
  const url = new URL(base);
  url.pathname = `/${database}`;
  return url.toString();
}
