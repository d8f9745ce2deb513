import type { ToolExecutionOptions } from "ai";
import type { z } from "zod";
import type { PendingModelCalls } from "../record-model-call";
import type { ActiveRun } from "../run-context";
import { toolCallKey } from "./tool-call-key";
import { type ToolFailure, toolResult } from "./tool-result";

/**
 * What every write a tool makes for its run passes along: the call's idempotency key, the run's
 * correlation id, and the run's model calls not yet written, which the write carries.
 */
export interface ToolWrite {
  idempotencyKey: string;
  correlationId: string;
  carry: PendingModelCalls;
}

/** Something a call holds before it writes (one of the run's requests, say), given back when the write fails. */
export interface Reservation {
  release(): void;
}

/** What a tool that changes something is made of. */
interface WritingToolSpec<Schema extends z.ZodType, Output extends object, Held extends Reservation> {
  description: string;
  inputSchema: Schema;
  /**
   * For a call that spends something of the run's: first, what an earlier attempt of the same call
   * already wrote (it spent it then; the answer is built from that write, and nothing is reserved
   * again); then the reservation, taken before the write and given back when the write fails.
   */
  spends?: {
    earlier(input: z.output<Schema>, write: ToolWrite): Promise<Output | null>;
    reserve(input: z.output<Schema>, write: ToolWrite): Held | null;
  };
  /** The change itself, made with `write` (its key found again when the call is made again). */
  write(input: z.output<Schema>, write: ToolWrite, held: Held | null, options: ToolExecutionOptions<ToolContext>): Promise<Output>;
}

/** Parley's tools read no context of the SDK's: what a run offers them is its `ActiveRun`. */
type ToolContext = Record<string, unknown>;

/** An agent tool as the SDK takes it: a description, its input's schema, and what a call does. */
interface AgentTool<Schema extends z.ZodType, Output> {
  description: string;
  inputSchema: Schema;
  execute(input: z.output<Schema>, options: ToolExecutionOptions<ToolContext>): Promise<Output>;
}

const writing = new WeakSet<object>();
const reading = new WeakSet<object>();

/**
 * Defines an agent tool that changes something. The call's idempotency key is computed as the
 * call is made, before anything is awaited: identical calls of a step are numbered in the order the
 * model made them, the same way each time the step is taken (`toolCallKey`). A step taken again after
 * its worker died finds its earlier writes under the same keys and does not make them twice.
 */
export function writingTool<Schema extends z.ZodType, Output extends object, Held extends Reservation = Reservation>(
  active: ActiveRun,
  name: string,
  spec: WritingToolSpec<Schema, Output, Held>,
) {
  const definition: AgentTool<Schema, ({ ok: true } & Output) | ToolFailure> = {
    description: spec.description,
    inputSchema: spec.inputSchema,
    execute: (input, options) => {
      const write: ToolWrite = {
        idempotencyKey: toolCallKey(active, name, input),
        correlationId: active.run.correlationId,
        carry: active.modelCalls,
      };
      return toolResult(async () => {
        const { spends } = spec;
        const earlier = spends ? await spends.earlier(input, write) : null;
        if (earlier) return earlier;
        const reservation = spends ? spends.reserve(input, write) : null;
        try {
          return await spec.write(input, write, reservation, options);
        } catch (error) {
          reservation?.release();
          throw error;
        }
      });
    },
  };
  writing.add(definition);
  return definition;
}

/** Defines an agent tool that only reads: it needs no key, and must change nothing. */
export function readingTool<Schema extends z.ZodType, Output>(spec: {
  description: string;
  inputSchema: Schema;
  execute(input: z.output<Schema>, options: ToolExecutionOptions<ToolContext>): Promise<Output>;
}) {
  const definition: AgentTool<Schema, Output> = {
    description: spec.description,
    inputSchema: spec.inputSchema,
    execute: spec.execute,
  };
  reading.add(definition);
  return definition;
}

/** How a tool was defined: by `writingTool`, by `readingTool`, or some other way (which no agent tool may be). */
export function toolDefinedAs(definition: object): "writing" | "reading" | "other" {
  if (writing.has(definition)) return "writing";
  if (reading.has(definition)) return "reading";
  return "other";
}
