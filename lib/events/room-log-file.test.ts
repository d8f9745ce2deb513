import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { AppError } from "@/lib/errors";
import { historyAction, roomHistory } from "@/test/room-history";
import { type RoomLogRoom, readRoomLog, roomLogWriter } from "./room-log-file";

const ROOM: RoomLogRoom = { id: "r", title: "Rain on the window", template: "creative-canvas", createdAt: "2026-11-22T10:00:00.000Z" };
const EVENTS = roomHistory(fc.sample(historyAction, { seed: 11, numRuns: 30 }));

function fileOf(events = EVENTS, room = ROOM): string {
  const writer = roomLogWriter(room, events.length, new Date("2026-11-23T10:00:00.000Z"));
  return writer.header() + events.map((event) => writer.event(event)).join("") + writer.end();
}

/** The refusal a file gets: its reason and the line it names. */
function refusal(text: string): { line: number; message: string } {
  try {
    readRoomLog(text, { maxEvents: 10_000 });
  } catch (error) {
    expect(error).toBeInstanceOf(AppError);
    const refused = error as AppError;
    expect(refused.status).toBe(400);
    return { line: (refused.details as { line: number }).line, message: refused.message };
  }
  throw new Error("The file was accepted.");
}

/** The file with line `line` (1-based) changed by `change`. */
function withLine(text: string, line: number, change: (line: string) => string | null): string {
  const lines = text.split("\n");
  const changed = change(lines[line - 1]!);
  if (changed === null) lines.splice(line - 1, 1);
  else lines[line - 1] = changed;
  return lines.join("\n");
}

describe("a room log file", () => {
  it("reads back exactly the events it was written with", () => {
    const log = readRoomLog(fileOf(), { maxEvents: 10_000 });
    expect(log.events).toEqual(EVENTS);
    expect(log.header.room).toEqual(ROOM);
    expect(log.digest).toMatch(/^[0-9a-f]{64}$/);
  });

  it("is refused, naming the line, when a line is not JSON, not an event, or an event the catalogue refuses", () => {
    expect(refusal(withLine(fileOf(), 5, (line) => line.slice(0, -3)))).toMatchObject({
      line: 5,
      message: expect.stringMatching(/^Line 5: not JSON/),
    });
    expect(refusal(withLine(fileOf(), 4, () => JSON.stringify({ hello: "world" })))).toMatchObject({
      line: 4,
      message: expect.stringContaining("not an event line"),
    });
    const badNode = withLine(fileOf(), 3, (line) => {
      const entry = JSON.parse(line);
      entry.event.type = "node.created";
      entry.event.payload = { node: { id: 42 } };
      return JSON.stringify(entry);
    });
    expect(refusal(badNode)).toMatchObject({ line: 3, message: expect.stringContaining("is not a valid Parley event") });
    expect(refusal("")).toMatchObject({ line: 1 });
    expect(refusal('{"format":"something-else"}\n')).toMatchObject({ line: 1, message: expect.stringContaining("not a Parley room log") });
  });

  it("is refused at the line that was changed, even when the change is itself a valid event", () => {
    const lines = fileOf().split("\n").length - 1;
    fc.assert(
      fc.property(fc.integer({ min: 2, max: lines - 1 }), fc.string({ minLength: 1, maxLength: 20 }), (line, text) => {
        const edited = withLine(fileOf(), line, (original) => {
          const entry = JSON.parse(original);
          entry.event.agent_name = `${entry.event.agent_name}${text}`;
          return JSON.stringify(entry);
        });
        const refused = refusal(edited);
        expect(refused.line).toBe(line);
        expect(refused.message).toContain("digest does not match");
      }),
      { numRuns: 40 },
    );
  });

  it("is refused when events are missing, repeated, out of order, of another room, or the file is cut short", () => {
    const file = fileOf();
    expect(refusal(withLine(file, 6, () => null))).toMatchObject({
      line: 6,
      message: expect.stringContaining("expected event 5, found event 6"),
    });
    const lines = file.split("\n");
    const repeated = [...lines.slice(0, 5), lines[4]!, ...lines.slice(5)].join("\n");
    expect(refusal(repeated)).toMatchObject({ line: 6, message: expect.stringContaining("event 4 again") });
    const swapped = [...lines.slice(0, 4), lines[5]!, lines[4]!, ...lines.slice(6)].join("\n");
    expect(refusal(swapped)).toMatchObject({ line: 5, message: expect.stringContaining("expected event 4, found event 5") });
    const elsewhere = withLine(file, 3, (line) => {
      const entry = JSON.parse(line);
      entry.event.room_id = "another";
      return JSON.stringify(entry);
    });
    expect(refusal(elsewhere)).toMatchObject({ line: 3, message: expect.stringContaining("belongs to another room") });
    const cut = lines.slice(0, 10).join("\n");
    expect(refusal(cut)).toMatchObject({ line: 11, message: expect.stringContaining("cut short") });
    const noEnd = lines.slice(0, EVENTS.length + 1).join("\n");
    expect(refusal(noEnd)).toMatchObject({ message: expect.stringContaining("end line is missing") });
    expect(refusal(`${file}{"more":true}\n`)).toMatchObject({
      line: EVENTS.length + 3,
      message: expect.stringContaining("after the end line"),
    });
  });

  it("is refused when its header was changed, its end line disagrees, or it does not start with the room's creation", () => {
    const file = fileOf();
    const renamed = withLine(file, 1, (line) => JSON.stringify({ ...JSON.parse(line), room: { ...ROOM, title: "Someone else's" } }));
    expect(refusal(renamed)).toMatchObject({ line: 1, message: expect.stringContaining("header was changed") });
    const last = EVENTS.length + 2;
    const recounted = withLine(file, last, (line) => JSON.stringify({ end: { ...JSON.parse(line).end, events: 3 } }));
    expect(refusal(recounted)).toMatchObject({ line: last, message: expect.stringContaining("counts 3 events") });
    const withoutCreation = fileOf(
      EVENTS.slice(1).map((event) => ({ ...event, seq: event.seq - 1 })),
      ROOM,
    );
    expect(refusal(withoutCreation)).toMatchObject({ line: 2, message: expect.stringContaining("first event is its creation") });
  });

  it("is refused when it holds more events than the server replays, or text no room can store", () => {
    expect(() => readRoomLog(fileOf(), { maxEvents: 5 })).toThrow(/replays at most 5/);
    const nul = withLine(fileOf(), 3, (line) => {
      const entry = JSON.parse(line);
      entry.event.agent_name = "A\u0000B";
      return JSON.stringify(entry);
    });
    expect(refusal(nul)).toMatchObject({ line: 3, message: expect.stringContaining("no room can store") });
  });

  it("is refused when an event is dated before the one before it", () => {
    const backwards = EVENTS.map((event, index) => (index === 5 ? { ...event, timestamp: "2020-01-01T00:00:00.000Z" } : event));
    expect(refusal(fileOf(backwards))).toMatchObject({ line: 7, message: expect.stringContaining("dated before") });
  });
});
