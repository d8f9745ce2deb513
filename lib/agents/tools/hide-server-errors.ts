import { randomBytes } from "node:crypto";
import type { ToolSet } from "ai";
import { AppError, unstorableTextError } from "@/lib/errors";

/** Where a tool's server-side failure is written in full; the model and the room get its reference only. */
export type ToolErrorReport = (toolName: string, reference: string, error: unknown) => void;

const logToolError: ToolErrorReport = (toolName, reference, error) =>
  console.error(`[parley] tool ${toolName} failed (reference ${reference}):`, error);

/**
 * Keeps a tool's server-side failures (a bug, the database refusing a statement) out of what
 * the model reads and the room sees in the step: such an error can quote SQL and its
 * parameters. The model is told the tool failed, with a reference that finds the whole error
 * in the server's log; expected failures (`AppError`: a bad id, a limit) and a run being
 * stopped go through as they are, and text the database cannot store (a NUL character) is
 * refused as a request with such text would be, for the model to correct.
 */
export function hidingServerErrors<T extends ToolSet>(tools: T, report: ToolErrorReport = logToolError): T {
  for (const [name, definition] of Object.entries(tools)) {
    const execute = definition.execute;
    if (!execute) continue;
    definition.execute = async (input: unknown, options: Parameters<typeof execute>[1]) => {
      try {
        return await execute(input, options);
      } catch (error) {
        if (error instanceof AppError || options.abortSignal?.aborted) throw error;
        const unstorable = unstorableTextError(error);
        if (unstorable) throw unstorable;
        const reference = randomBytes(4).toString("hex");
        report(name, reference, error);
        throw new Error(`${name} failed on the server (reference ${reference}); try again, or carry on without it.`);
      }
    };
  }
  return tools;
}
