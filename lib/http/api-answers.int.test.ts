import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { useTestRuntime } from "@/test/test-runtime";
import { API_ROUTES } from "@/scripts/api-routes.mjs";
import { ROUTE_METHODS } from "./method-not-allowed";

useTestRuntime();

/** Every route handler file under app/api, with the parameters its path names. */
function routeFiles(directory = path.join(process.cwd(), "app", "api")): string[] {
  return fs.readdirSync(directory, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(directory, entry.name);
    if (entry.isDirectory()) return routeFiles(full);
    return entry.name === "route.ts" ? [full] : [];
  });
}

function paramsOf(file: string): Record<string, string | string[]> {
  const segments = path.relative(path.join(process.cwd(), "app"), path.dirname(file)).split(path.sep);
  return Object.fromEntries(
    segments
      .map((segment) => segment.match(/^\[(\.\.\.)?(\w+)\]$/))
      .filter((match): match is RegExpMatchArray => match !== null)
      .map((match) => [match[2]!, match[1] ? ["no", "such", "thing"] : "missing"]),
  );
}

type Handler = (request: Request, context: { params: Promise<unknown> }) => Promise<Response> | Response;

describe("every /api route", () => {
  const files = routeFiles();

  it("answers every method in JSON, a method it does not serve (OPTIONS included) with a 405 naming those it does", async () => {
    expect(files.length).toBeGreaterThan(30);
    // Left to Next.js, OPTIONS would be an empty 204.
    expect(ROUTE_METHODS).toContain("OPTIONS");
    for (const file of files) {
      const where = path.relative(process.cwd(), file);
      const source = fs.readFileSync(file, "utf8");
      const served = ROUTE_METHODS.filter((method) => new RegExp(`export (async function|const) ${method}\\b`).test(source));
      const module = (await import(file)) as Partial<Record<string, Handler>>;
      for (const method of ROUTE_METHODS) {
        const handler = module[method];
        expect(typeof handler, `${where} exports nothing for ${method}`).toBe("function");
        const request = new Request("http://localhost/api/x", {
          method,
          headers: { "content-type": "application/json" },
          body: method === "GET" ? undefined : "{}",
        });
        const response = await handler!(request, { params: Promise.resolve(paramsOf(file)) });
        expect(response.headers.get("content-type"), `${method} ${where} answered ${response.status}`).toMatch(/application\/json/);
        const body = await response.json();
        if (served.includes(method)) continue;
        expect([where, method, response.status]).toEqual([where, method, 405]);
        expect(response.headers.get("allow")).toBe(served.join(", "));
        expect(body.error).toMatchObject({ code: "method_not_allowed" });
      }
    }
  });

  it("is listed with the methods it serves for the front door, which answers the methods Next.js cannot take", async () => {
    const listed: Record<string, string> = {};
    for (const file of files) {
      const route = `/${path.relative(path.join(process.cwd(), "app"), path.dirname(file)).split(path.sep).join("/")}`;
      if (route.includes("[[...")) continue;
      const source = fs.readFileSync(file, "utf8");
      listed[route] = ROUTE_METHODS.filter((method) => new RegExp(`export (async function|const) ${method}\\b`).test(source)).join(", ");
    }
    // The live path's Pages API routes: the event stream, and the canvas writes served by `pagesRoutes`.
    const pagesDirectory = path.join(process.cwd(), "pages");
    const pageFiles = (directory: string): string[] =>
      fs.readdirSync(directory, { withFileTypes: true }).flatMap((entry) => {
        const full = path.join(directory, entry.name);
        return entry.isDirectory() ? pageFiles(full) : [full];
      });
    for (const file of pageFiles(path.join(pagesDirectory, "api"))) {
      const route = `/${path
        .relative(pagesDirectory, file)
        .replace(/\.ts$/, "")
        .replace(/\/index$/, "")
        .split(path.sep)
        .join("/")}`;
      const source = fs.readFileSync(file, "utf8");
      const served =
        source.match(/pagesRoutes\(\{([^}]*)\}\)/)?.[1]?.match(/\b[A-Z]+(?=:)/g) ?? (source.includes("serveRoomEvents") ? ["GET"] : []);
      listed[route] = served.join(", ");
    }
    expect(API_ROUTES).toEqual(listed);
  });

  it("that does not exist is a 404 in JSON", async () => {
    const { GET, POST, OPTIONS } = await import("@/app/api/[[...path]]/route");
    for (const handler of [GET, POST, OPTIONS]) {
      const response = handler(new Request("http://localhost/api/no/such/thing", { method: "POST" }));
      expect(response.status).toBe(404);
      expect(await response.json()).toEqual({ error: { code: "not_found", message: "There is no API at /api/no/such/thing." } });
    }
  });
});
