import type { IncomingMessage, ServerResponse } from "node:http";
import { z } from "zod";
import type { DbOrTx } from "@/db";
import type { Seat } from "@/db/schema";
import { seatActor } from "@/lib/auth/seats";
import { AppError, forbidden, payloadTooLarge } from "@/lib/errors";
import { withRequestCause } from "@/lib/events/cause";
import { clientAddress } from "./client-address";
import { crossOriginRefusal } from "./security";
import { enforceRate } from "@/lib/limits/rate-limit";
import { LIMITS } from "@/lib/protocol";
import type { Runtime } from "@/lib/runtime";
import { type JsonAnswer, checkIdempotencyKey, decodeUtf8, errorAnswer, parseJsonText, readText } from "./request";
import { participantAccessByCookie } from "./room-access";

/** What a participant's request gives its handler, once the seat and the body have been checked. */
export interface ParticipantRequest<P, I> {
  runtime: Runtime;
  seat: Seat;
  /** The seat as the writer of events and canvas nodes. */
  actor: ReturnType<typeof seatActor>;
  params: P;
  input: I;
  idempotencyKey: string | undefined;
  /** The client's address (`clientAddress`), for a handler that counts something against it. */
  clientAddress(): string;
}

/**
 * A change a participant makes to a room: who may ask (someone with a seat in the room in
 * `params.roomId`, else 403; within the seat's rate of writes, else 429), what body it takes
 * (`input`, or none), and what it answers. The
 * same definition is served by the App Router (`appRoute`) or by a Pages API route
 * (`pagesRoutes`) where the answer must skip the App Router's web stream piping.
 */
export interface ParticipantRoute<P extends { roomId: string }, I> {
  path: string;
  input: z.ZodType<I> | null;
  handle(request: ParticipantRequest<P, I>): Promise<JsonAnswer>;
}

/** The parameters a route path names: `/api/rooms/[roomId]/nodes/[nodeId]` gives `roomId` and `nodeId`. */
export type ParamsOf<Path extends string> = Path extends `${string}[${infer Name}]${infer Rest}`
  ? { [K in Name]: string } & ParamsOf<Rest>
  : unknown;

/** What a body schema gives the handler: its parsed output, or nothing for a route without a body. */
type InputOf<S> = S extends z.ZodType ? z.output<S> : undefined;

/**
 * What a route without a body accepts: nothing, or an empty JSON object. Anything else is checked
 * and refused as a body would be (a 400 or 413 with the reason), so a request with a hostile body
 * changes nothing there either.
 */
const NO_BODY = z.strictObject({});

/**
 * Defines a participant route on `path` (which documents it and types its parameters) with
 * the body `input` validates, or none (`null`).
 */
export function participantRoute<Path extends `/api/rooms/[roomId]${string}`, S extends z.ZodType | null>(
  path: Path,
  input: S,
  handle: (request: ParticipantRequest<ParamsOf<Path>, InputOf<S>>) => Promise<JsonAnswer>,
): ParticipantRoute<ParamsOf<Path> & { roomId: string }, InputOf<S>> {
  return { path, input: input as z.ZodType<InputOf<S>> | null, handle };
}

/**
 * Counts one change a seat makes to its room against the seat's rate of writes
 * (`PARLEY_SEAT_WRITES_PER_MINUTE`), refusing it with a 429 beyond: every participant route does
 * this, and so do the routes that also serve admins without a seat (whom it does not limit).
 */
export async function limitSeatWrites(db: DbOrTx, seat: Pick<Seat, "id">): Promise<void> {
  await enforceRate(db, "seatWrites", seat.id);
}

async function handleWith<P extends { roomId: string }, I>(
  route: ParticipantRoute<P, I>,
  params: P,
  cookie: string | null | undefined,
  idempotencyHeader: string | null | undefined,
  bodyText: () => Promise<string>,
  address: () => string,
): Promise<JsonAnswer> {
  const { runtime, seat } = await participantAccessByCookie(cookie, params.roomId);
  await limitSeatWrites(runtime.database.db, seat);
  const idempotencyKey = checkIdempotencyKey(idempotencyHeader);
  const body = await bodyText();
  if (!route.input && body.trim()) parseJsonText(body, NO_BODY);
  const input = route.input ? parseJsonText(body, route.input) : (undefined as I);
  return route.handle({ runtime, seat, actor: seatActor(seat), params, input, idempotencyKey, clientAddress: address });
}

/** Serves a participant route as an App Router route handler. */
export function appRoute<P extends { roomId: string }, I>(route: ParticipantRoute<P, I>) {
  return async (request: Request, { params }: { params: Promise<P> }): Promise<Response> => {
    let answer: JsonAnswer;
    try {
      answer = await withRequestCause(request.headers, async () =>
        handleWith(
          route,
          await params,
          request.headers.get("cookie"),
          request.headers.get("idempotency-key"),
          () => readText(request, LIMITS.requestBodyBytes),
          () => clientAddress(request.headers),
        ),
      );
    } catch (error) {
      answer = errorAnswer(error);
    }
    return Response.json(answer.body, { status: answer.status, headers: answer.headers });
  };
}

/**
 * Reads a Node.js request body as UTF-8 within `maxBytes`, refusing a larger one with a 413
 * as soon as it passes the limit (the rest is read and dropped, so the answer can be sent).
 */
async function readBody(request: IncomingMessage, maxBytes: number): Promise<string> {
  if (Number(request.headers["content-length"] ?? "0") > maxBytes) throw payloadTooLarge(maxBytes);
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size <= maxBytes) chunks.push(chunk);
  }
  if (size > maxBytes) throw payloadTooLarge(maxBytes);
  return decodeUtf8(Buffer.concat(chunks, size));
}

function sendJson(response: ServerResponse, answer: JsonAnswer): void {
  const body = JSON.stringify(answer.body);
  response.writeHead(answer.status, {
    ...answer.headers,
    "Content-Type": "application/json",
    "Content-Length": Buffer.byteLength(body),
  });
  response.end(body);
}

type Method = "GET" | "POST" | "PUT" | "PATCH" | "DELETE";

/** A Node.js request's headers read as a web request's are. */
function nodeHeaders(request: IncomingMessage): Pick<Headers, "get"> {
  return {
    get: (name: string) => {
      const value = request.headers[name.toLowerCase()];
      return Array.isArray(value) ? value.join(", ") : (value ?? null);
    },
  };
}
/** A Pages API request as the routes read it: Next.js fills `query` with the path's segments. */
type PagesRequest = IncomingMessage & { query: Partial<Record<string, string | string[]>> };

/**
 * Serves participant routes, one per method, as a Pages API route: the Node.js request and
 * response are used as they are, which costs the server less per request than the App Router.
 * Any other method is a 405 naming the ones allowed.
 */
export function pagesRoutes<P extends { roomId: string }>(
  routes: Partial<Record<Method, ParticipantRoute<P, unknown>>>,
): (request: PagesRequest, response: ServerResponse) => Promise<void> {
  const allowed = Object.keys(routes).join(", ");
  return async (request, response) => {
    let answer: JsonAnswer;
    try {
      const route = routes[request.method as Method];
      if (!route) {
        throw new AppError(405, "method_not_allowed", `${request.method} is not allowed here; use ${allowed}.`);
      }
      // The live path skips proxy.ts (see its matcher): it refuses other sites' writes here.
      const refusal = crossOriginRefusal(request.method ?? "GET", nodeHeaders(request));
      if (refusal) throw forbidden(refusal);
      const params = Object.fromEntries(Object.entries(request.query).map(([name, value]) => [name, String(value)])) as P;
      const header = request.headers["idempotency-key"];
      answer = await withRequestCause(nodeHeaders(request), () =>
        handleWith(
          route,
          params,
          request.headers.cookie,
          Array.isArray(header) ? header[0] : header,
          () => readBody(request, LIMITS.requestBodyBytes),
          () => clientAddress(request.headers, request.socket.remoteAddress),
        ),
      );
    } catch (error) {
      answer = errorAnswer(error);
      if (answer.status === 405) answer.headers = { Allow: allowed };
    }
    sendJson(response, answer);
  };
}
