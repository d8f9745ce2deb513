import type { LanguageModelV4, LanguageModelV4CallOptions, LanguageModelV4StreamPart } from "@ai-sdk/provider";
import type { LimitReachedPayload } from "@/lib/protocol";
import type { Reservation } from "@/lib/limits/reserve-spend";
import { estimateTokens } from "./build-prompt";

/** A model call not made because what it could spend does not fit in a budget. */
export class SpendRefusedError extends Error {
  constructor(readonly reached: LimitReachedPayload) {
    super(reached.message);
    this.name = "SpendRefusedError";
  }
}

export interface ReservationHooks {
  /** The output-token limit of a call that names none. */
  defaultOutputTokens: number;
  /** Reserves a call's worst case against the budgets; refuses it when it does not fit. */
  reserve(worst: { inputTokens: number; outputTokens: number }): Promise<Reservation>;
  /** Gives a reservation back: its call failed before reporting usage. */
  release(reservationId: string): Promise<void>;
  /** A call that returned holds its reservation until its usage, which replaces it, is recorded. */
  held(reservationId: string): void;
}

/** The input of a call as it is sent, in tokens as Parley estimates them: every message and tool definition. */
export function inputTokensOf(options: Pick<LanguageModelV4CallOptions, "prompt" | "tools">): number {
  return estimateTokens(JSON.stringify(options.prompt)) + (options.tools ? estimateTokens(JSON.stringify(options.tools)) : 0);
}

/**
 * A model whose every call first reserves what it could spend at most — its input as sent plus
 * its output-token limit — and is not made when that does not fit (`SpendRefusedError`). A call
 * that fails before it reports usage gives its reservation back; one that returns keeps it until
 * its usage is recorded in its place (`held`).
 */
export function withSpendReservations(model: LanguageModelV4, hooks: ReservationHooks): LanguageModelV4 {
  const reserve = async (options: LanguageModelV4CallOptions): Promise<string> => {
    const reservation = await hooks.reserve({
      inputTokens: inputTokensOf(options),
      outputTokens: options.maxOutputTokens ?? hooks.defaultOutputTokens,
    });
    if (reservation.refused) throw new SpendRefusedError(reservation.refused);
    // A run stopped while its call was being reserved makes no call.
    if (options.abortSignal?.aborted) {
      await hooks.release(reservation.reservationId).catch(() => {});
      options.abortSignal.throwIfAborted();
    }
    return reservation.reservationId;
  };
  const release = (id: string) => hooks.release(id).catch(() => {});
  return {
    specificationVersion: model.specificationVersion,
    provider: model.provider,
    modelId: model.modelId,
    supportedUrls: model.supportedUrls,
    doGenerate: async (options) => {
      const id = await reserve(options);
      try {
        const result = await model.doGenerate(options);
        hooks.held(id);
        return result;
      } catch (error) {
        await release(id);
        throw error;
      }
    },
    doStream: async (options) => {
      const id = await reserve(options);
      let result: Awaited<ReturnType<LanguageModelV4["doStream"]>>;
      try {
        result = await model.doStream(options);
      } catch (error) {
        await release(id);
        throw error;
      }
      let finished = false;
      const settle = new TransformStream<LanguageModelV4StreamPart, LanguageModelV4StreamPart>({
        transform(part, controller) {
          if (part.type === "finish") {
            finished = true;
            hooks.held(id);
          }
          controller.enqueue(part);
        },
        flush() {
          if (!finished) void release(id);
        },
      });
      const stream = result.stream.pipeThrough(settle);
      // A stream that fails or is abandoned before it finishes reported no usage: nothing to settle to.
      const reader = stream.getReader();
      const guarded = new ReadableStream<LanguageModelV4StreamPart>({
        async pull(controller) {
          try {
            const next = await reader.read();
            if (next.done) controller.close();
            else controller.enqueue(next.value);
          } catch (error) {
            if (!finished) void release(id);
            controller.error(error);
          }
        },
        cancel(reason) {
          if (!finished) void release(id);
          return reader.cancel(reason);
        },
      });
      return { ...result, stream: guarded };
    },
  };
}
