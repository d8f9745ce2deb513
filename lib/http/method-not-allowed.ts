import { AppError } from "@/lib/errors";

/**
 * The methods every route handler file answers. OPTIONS is among them: Next.js's own answer to it
 * is an empty 204 whose `Allow` lists every method a file exports, the refused ones included; Parley
 * serves no cross-origin requests, so OPTIONS is refused in JSON like any method a route does not serve.
 */
export const ROUTE_METHODS = ["GET", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"] as const;
export type RouteMethod = (typeof ROUTE_METHODS)[number];

/** The refusal of a method a route does not serve: a 405 naming those it does. */
function methodNotAllowed(method: string, allowed: readonly string[]): AppError {
  const allow = allowed.join(", ");
  return new AppError(405, "method_not_allowed", `${method} is not allowed here; use ${allow}.`, undefined, { Allow: allow });
}

/**
 * Handlers for the methods a route handler file does not serve, answering 405 in JSON with
 * `Allow` (Next.js's own answer has no body):
 * `export const { PUT, PATCH, DELETE, OPTIONS } = methodsNotAllowed("GET", "POST")`.
 */
export function methodsNotAllowed(...allowed: RouteMethod[]): Record<RouteMethod, (request: Request) => Response> {
  const refuse = (request: Request) => methodNotAllowed(request.method, allowed).toResponse();
  return Object.fromEntries(ROUTE_METHODS.map((method) => [method, refuse])) as Record<RouteMethod, (request: Request) => Response>;
}
