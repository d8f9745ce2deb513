// /api, or any path below it no route serves — 404 in JSON, like every other /api answer (Next.js's own is HTML)
import { AppError } from "@/lib/errors";

export const dynamic = "force-dynamic";

function noSuchRoute(request: Request): Response {
  return new AppError(404, "not_found", `There is no API at ${new URL(request.url).pathname}.`).toResponse();
}

export const GET = noSuchRoute;
export const POST = noSuchRoute;
export const PUT = noSuchRoute;
export const PATCH = noSuchRoute;
export const DELETE = noSuchRoute;
export const OPTIONS = noSuchRoute;
