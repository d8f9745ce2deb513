import { createHash } from "node:crypto";
import { z } from "zod";
import { badRequest } from "@/lib/errors";
import { findUnstorableText } from "@/lib/http/request";
import { type StoredEvent, storedEventSchema } from "@/lib/protocol";

/**
 * A room's whole log as a file (JSON Lines), to replay it on another Parley:
 *
 *   line 1        {"format":"parley-room-log","version":1,"room":{…},"events":N,"exportedAt":…,"digest":h0}
 *   lines 2…N+1   {"seq":k,"digest":hk,"event":{…the stored event k…}}
 *   line N+2      {"end":{"events":N,"digest":hN}}
 *
 * Each line's digest chains every line before it: h0 is the SHA-256 of the header's room and
 * count, and hk = SHA-256(hk-1 + the event's JSON). A line changed after export breaks the
 * chain at that line, a line removed or moved breaks the sequence numbers, a file cut short has
 * no end line. The digest shows a file is whole and as exported; it is not a signature (anyone
 * who edits the events can compute digests again), so a replay says whose room it claims to be.
 */
const ROOM_LOG_FORMAT = "parley-room-log";
const ROOM_LOG_VERSION = 1;

const roomLogRoomSchema = z.strictObject({
  id: z.string().min(1).max(200),
  title: z.string().max(200),
  template: z.string().max(64),
  createdAt: z.string(),
});
export type RoomLogRoom = z.infer<typeof roomLogRoomSchema>;

const headerSchema = z.strictObject({
  format: z.literal(ROOM_LOG_FORMAT),
  version: z.literal(ROOM_LOG_VERSION),
  room: roomLogRoomSchema,
  events: z.number().int().min(1),
  exportedAt: z.string(),
  digest: z.string(),
});
type RoomLogHeader = z.infer<typeof headerSchema>;

const lineSchema = z.strictObject({ seq: z.number().int().positive(), digest: z.string(), event: z.unknown() });
const endSchema = z.strictObject({ end: z.strictObject({ events: z.number().int().min(1), digest: z.string() }) });

function sha256(text: string): string {
  return createHash("sha256").update(text).digest("hex");
}

function headerDigest(room: RoomLogRoom, events: number): string {
  return sha256(JSON.stringify({ format: ROOM_LOG_FORMAT, version: ROOM_LOG_VERSION, room, events }));
}

function chained(previous: string, event: unknown): string {
  return sha256(previous + JSON.stringify(event));
}

/** Writes a room's log as a file, line by line: give it the room and its event count, then each event in order. */
export function roomLogWriter(room: RoomLogRoom, count: number, exportedAt: Date = new Date()) {
  let digest = headerDigest(room, count);
  let written = 0;
  return {
    header(): string {
      const header: RoomLogHeader = {
        format: ROOM_LOG_FORMAT,
        version: ROOM_LOG_VERSION,
        room,
        events: count,
        exportedAt: exportedAt.toISOString(),
        digest,
      };
      return `${JSON.stringify(header)}\n`;
    },
    event(event: StoredEvent): string {
      digest = chained(digest, event);
      written += 1;
      return `${JSON.stringify({ seq: event.seq, digest, event })}\n`;
    },
    end(): string {
      if (written !== count) throw new Error(`The log file was to hold ${count} events but has ${written}.`);
      return `${JSON.stringify({ end: { events: count, digest } })}\n`;
    },
  };
}

/** What a log file held, once every check passed. */
export interface RoomLog {
  header: RoomLogHeader;
  events: StoredEvent[];
  /** The digest of the whole file (its last line's). */
  digest: string;
}

export interface RoomLogLimits {
  maxEvents: number;
}

/** A refusal naming the line at fault (1-based), as a 400 with `details.line`. */
function refuse(line: number, reason: string) {
  return badRequest(`Line ${line}: ${reason}`, { line });
}

function parseLine(text: string, line: number): unknown {
  try {
    return JSON.parse(text);
  } catch (error) {
    throw refuse(line, `not JSON (${(error as Error).message}).`);
  }
}

function issues(error: z.ZodError): string {
  return error.issues
    .slice(0, 3)
    .map((issue) => `${issue.path.join(".") || "line"}: ${issue.message}`)
    .join("; ");
}

/**
 * Reads and checks a room log file. Every line must be JSON of its kind; the events must be the
 * catalogue's, of the one room the header names, numbered 1, 2, 3… with none missing or twice,
 * starting with the room's creation, in time order; every digest must match the lines before
 * it; the end line must be there with the same count and digest. The first problem refuses
 * the whole file with a 400 naming its line.
 */
export function readRoomLog(text: string, limits: RoomLogLimits): RoomLog {
  const lines = text.split("\n");
  if (lines.at(-1) === "") lines.pop();
  if (lines.length === 0 || !lines[0]!.trim()) throw refuse(1, "the file is empty; expected a Parley room log.");
  const headerValue = parseLine(lines[0]!, 1);
  const header = headerSchema.safeParse(headerValue);
  if (!header.success) {
    const format = (headerValue as { format?: unknown } | null)?.format;
    throw refuse(
      1,
      format === ROOM_LOG_FORMAT
        ? `the header is not one this version reads (${issues(header.error)}).`
        : `not a Parley room log (export one from a room's timeline: "Share as a file").`,
    );
  }
  const { room, events: count } = header.data;
  if (count > limits.maxEvents) throw refuse(1, `the log has ${count} events; this server replays at most ${limits.maxEvents}.`);
  let digest = headerDigest(room, count);
  if (header.data.digest !== digest) throw refuse(1, "the header's digest does not match its room and count: the header was changed.");

  const events: StoredEvent[] = [];
  let previousTime = Number.NEGATIVE_INFINITY;
  for (let index = 1; index < lines.length; index++) {
    const line = index + 1;
    const text = lines[index]!;
    if (!text.trim()) throw refuse(line, "an empty line; every line of a room log holds one entry.");
    const value = parseLine(text, line);
    const unstorable = findUnstorableText(value);
    if (unstorable) throw refuse(line, `${unstorable} holds a character no room can store (U+0000 or an unpaired surrogate).`);
    if (events.length === count) {
      const end = endSchema.safeParse(value);
      if (!end.success) throw refuse(line, `expected the end line after ${count} events (${issues(end.error)}).`);
      if (end.data.end.events !== count) throw refuse(line, `the end line counts ${end.data.end.events} events; the header, ${count}.`);
      if (end.data.end.digest !== digest) throw refuse(line, "the end line's digest does not match the events: the file was changed.");
      if (index !== lines.length - 1) throw refuse(line + 1, "lines after the end line.");
      return { header: header.data, events, digest };
    }
    const entry = lineSchema.safeParse(value);
    if (!entry.success) {
      const isEnd = endSchema.safeParse(value).success;
      throw refuse(
        line,
        isEnd
          ? `the end line comes after ${events.length} of the ${count} events: events are missing.`
          : `not an event line (${issues(entry.error)}).`,
      );
    }
    const expected = events.length + 1;
    if (entry.data.seq !== expected) {
      throw refuse(
        line,
        entry.data.seq < expected
          ? `event ${entry.data.seq} again (or out of order); expected event ${expected}.`
          : `expected event ${expected}, found event ${entry.data.seq}: events are missing.`,
      );
    }
    const parsed = storedEventSchema.safeParse(entry.data.event);
    if (!parsed.success) throw refuse(line, `event ${expected} is not a valid Parley event (${issues(parsed.error)}).`);
    const event = parsed.data;
    if (event.seq !== expected) throw refuse(line, `the line says event ${expected} but holds event ${event.seq}.`);
    if (event.room_id !== room.id) throw refuse(line, `event ${expected} belongs to another room (${event.room_id}).`);
    if (expected === 1 && event.type !== "room.created")
      throw refuse(line, `a room's first event is its creation; this one is ${event.type}.`);
    if (expected > 1 && event.type === "room.created") throw refuse(line, `event ${expected} creates the room again.`);
    const time = Date.parse(event.timestamp);
    if (time < previousTime) throw refuse(line, `event ${expected} is dated before the event before it.`);
    previousTime = time;
    digest = chained(digest, entry.data.event);
    if (entry.data.digest !== digest) {
      throw refuse(line, `event ${expected}'s digest does not match: this line (or the header) was changed after export.`);
    }
    events.push(event);
  }
  throw refuse(
    lines.length + 1,
    events.length < count
      ? `the file ends after ${events.length} of its ${count} events: it was cut short.`
      : "the end line is missing: the file was cut short.",
  );
}
