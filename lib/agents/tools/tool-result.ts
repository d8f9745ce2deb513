import { AppError } from "@/lib/errors";

export type ToolFailure = { ok: false; error: string };

/**
 * Runs a tool body and turns expected failures (bad ids, limits) into `{ ok: false, error }`
 * for the model to read and correct. Bugs still throw; the SDK reports them to the model as
 * a tool error, by reference only (`hidingServerErrors`), and the run goes on.
 */
export async function toolResult<T extends object>(work: () => Promise<T>): Promise<({ ok: true } & T) | ToolFailure> {
  try {
    return { ok: true, ...(await work()) };
  } catch (error) {
    if (error instanceof AppError) return { ok: false, error: error.message };
    throw error;
  }
}
