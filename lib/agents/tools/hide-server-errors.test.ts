import { tool } from "ai";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { badRequest } from "@/lib/errors";
import { type ToolErrorReport, hidingServerErrors } from "./hide-server-errors";

const call = { toolCallId: "call-1", messages: [], context: {} };

function failingWith(error: unknown) {
  return tool({
    inputSchema: z.object({ text: z.string() }),
    execute: async (): Promise<{ ok: true }> => {
      throw error;
    },
  });
}

function recorder() {
  const reports: { toolName: string; reference: string; error: unknown }[] = [];
  const report: ToolErrorReport = (toolName, reference, error) => reports.push({ toolName, reference, error });
  return { reports, report };
}

describe("a tool's server-side failure", () => {
  it("reaches the model as a reference, and the log as the whole error", async () => {
    const database = new Error('Failed query: insert into "canvas_nodes" ("id", "text") values ($1, $2)\nparams: n1,secret plans');
    const { reports, report } = recorder();
    const tools = hidingServerErrors({ create_node: failingWith(database) }, report);

    const failure = await Promise.resolve(tools.create_node.execute!({ text: "secret plans" }, call)).then(
      () => null,
      (error: unknown) => error as Error,
    );

    expect(failure?.message).toMatch(/^create_node failed on the server \(reference [0-9a-f]{8}\); try again, or carry on without it\.$/);
    expect(failure?.message).not.toContain("canvas_nodes");
    expect(failure?.message).not.toContain("secret");
    expect(reports).toEqual([
      { toolName: "create_node", reference: failure!.message.match(/reference ([0-9a-f]{8})/)![1], error: database },
    ]);
  });

  it("refuses text the database cannot store as a request with such text is refused", async () => {
    const { reports, report } = recorder();
    const nul = Object.assign(new Error('invalid byte sequence for encoding "UTF8": 0x00'), { code: "22021" });
    const tools = hidingServerErrors({ create_node: failingWith(new Error("Failed query: insert …", { cause: nul })) }, report);

    await expect(tools.create_node.execute!({ text: "a" }, call)).rejects.toThrow(
      /^The request contains characters that cannot be stored \(such as U\+0000\)\.$/,
    );
    expect(reports).toEqual([]);
  });

  it("lets an expected failure and a stopped run's error through as they are, and a result untouched", async () => {
    const { reports, report } = recorder();
    const refused = badRequest("No note has the id n9.");
    const stopped = new Error("This operation was aborted");
    const aborted = new AbortController();
    aborted.abort();
    const tools = hidingServerErrors(
      {
        refused: failingWith(refused),
        stopped: failingWith(stopped),
        fine: tool({ inputSchema: z.object({ text: z.string() }), execute: async ({ text }) => ({ ok: true, text }) }),
      },
      report,
    );

    await expect(tools.refused.execute!({ text: "x" }, call)).rejects.toBe(refused);
    await expect(tools.stopped.execute!({ text: "x" }, { ...call, abortSignal: aborted.signal })).rejects.toBe(stopped);
    await expect(tools.fine.execute!({ text: "kept" }, call)).resolves.toEqual({ ok: true, text: "kept" });
    expect(reports).toEqual([]);
  });
});
