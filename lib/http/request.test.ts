import { describe, expect, it } from "vitest";
import { z } from "zod";
import { AppError, notFound } from "@/lib/errors";
import { describeZodError, findUnstorableText, idempotencyKey, parseCookies, readJsonBody, respond } from "./request";

const schema = z.strictObject({ text: z.string().max(5), x: z.number() });
const request = (body: string, headers: Record<string, string> = {}) =>
  new Request("http://localhost/x", { method: "POST", body, headers: { "content-type": "application/json", ...headers } });

describe("request helpers", () => {
  it("read a valid JSON body", async () => {
    expect(await readJsonBody(request('{"text":"hi","x":1}'), schema)).toEqual({ text: "hi", x: 1 });
  });

  it("refuse malformed, empty, mistyped, unknown and oversized bodies with the reason", async () => {
    await expect(readJsonBody(request("{"), schema)).rejects.toMatchObject({
      status: 400,
      message: expect.stringMatching(/^Malformed JSON/),
    });
    await expect(readJsonBody(request("  "), schema)).rejects.toMatchObject({ status: 400, message: "Expected a JSON body." });
    await expect(readJsonBody(request('{"text":1,"x":1}'), schema)).rejects.toMatchObject({
      status: 400,
      message: expect.stringMatching(/^text: /),
    });
    await expect(readJsonBody(request('{"text":"a","x":1,"y":2}'), schema)).rejects.toMatchObject({ message: "body: unknown field(s) y" });
    await expect(readJsonBody(request('{"text":"toolong","x":1}'), schema)).rejects.toMatchObject({
      message: expect.stringMatching(/^text: /),
    });
    await expect(readJsonBody(request(JSON.stringify({ text: "a".repeat(100), x: 1 })), schema, 50)).rejects.toMatchObject({ status: 413 });
    await expect(readJsonBody(request("{}", { "content-length": "999999" }), schema, 50)).rejects.toMatchObject({ status: 413 });
  });

  it("refuse text that cannot be stored, naming where it is", async () => {
    const nul = readJsonBody(request(JSON.stringify({ text: "a\u0000b", x: 1 })), schema);
    await expect(nul).rejects.toMatchObject({
      status: 400,
      message: expect.stringMatching(/^text: contains a character that cannot be stored/),
    });
    const lone = readJsonBody(request('{"text":"\\ud83d","x":1}'), schema);
    await expect(lone).rejects.toMatchObject({ status: 400, message: expect.stringMatching(/^text: /) });
    expect(findUnstorableText({ a: [{ b: "ok" }, { "c\u0000": 1 }] })).toBe("a.1.c\u0000");
    expect(findUnstorableText({ a: ["ok", "\udc00x"] })).toBe("a.1");
    expect(findUnstorableText({ a: "emoji 😀 is a whole pair", b: [1, null, true] })).toBeNull();
    const notUtf8 = new Request("http://localhost/x", { method: "POST", body: new Uint8Array([0x7b, 0xff, 0x7d]) });
    await expect(readJsonBody(notUtf8, schema)).rejects.toMatchObject({ status: 400, message: "The body is not valid UTF-8." });
  });

  it("stop reading a body that passes the limit without declaring its length", async () => {
    let pulled = 0;
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        pulled += 1;
        if (pulled > 1000) controller.close();
        else controller.enqueue(new Uint8Array(1024).fill(0x20));
      },
    });
    const streamed = new Request("http://localhost/x", { method: "POST", body, duplex: "half" } as RequestInit);
    await expect(readJsonBody(streamed, schema, 10 * 1024)).rejects.toMatchObject({ status: 413 });
    expect(pulled).toBeLessThan(20);
  });

  it("read the idempotency key, refusing one that is too long", () => {
    expect(idempotencyKey(request("{}"))).toBeUndefined();
    expect(idempotencyKey(request("{}", { "idempotency-key": " abc " }))).toBe("abc");
    expect(() => idempotencyKey(request("{}", { "idempotency-key": "k".repeat(129) }))).toThrow(AppError);
  });

  it("parse cookies", () => {
    expect(parseCookies("a=1; b=hello%20world; broken; c=")).toEqual({ a: "1", b: "hello world", c: "" });
    expect(parseCookies(null)).toEqual({});
    const odd = parseCookies("__proto__=x; constructor=y");
    expect(odd.constructor).toBe("y");
    expect(odd["__proto__"]).toBe("x");
    expect(parseCookies("a=1").constructor).toBeUndefined();
  });

  it("name every offending field", () => {
    const result = schema.safeParse({ text: 3 });
    expect(result.success).toBe(false);
    if (!result.success) expect(describeZodError(result.error)).toMatch(/^text: .+; x: /);
  });

  it("map expected failures to their status and anything else to a 500 without details", async () => {
    const noHeaders = { headers: new Headers() };
    expect(
      (
        await respond(async () => {
          throw notFound("Room");
        }, noHeaders)
      ).status,
    ).toBe(404);
    expect((await respond(async () => Response.json(schema.parse({})), noHeaders)).status).toBe(400);
    const original = console.error;
    console.error = () => {};
    const crash = await respond(async () => {
      throw new Error("secret database detail");
    }, noHeaders);
    console.error = original;
    expect(crash.status).toBe(500);
    // PostgreSQL refusing text it cannot hold (a NUL in an id from the path) is the request's fault.
    const refused = Object.assign(new Error("Failed query"), {
      cause: Object.assign(new Error("invalid byte sequence"), { code: "22021" }),
    });
    const unstorable = await respond(async () => {
      throw refused;
    }, noHeaders);
    expect(unstorable.status).toBe(400);
    expect(JSON.stringify(await crash.json())).not.toMatch(/secret/);
  });
});
