import { tool } from "ai";
import { and, count, eq, inArray } from "drizzle-orm";
import { z } from "zod";
import { canvasNodes, runs } from "@/db/schema";
import { postBoardEntry } from "@/lib/board/post-entry";
import { badRequest } from "@/lib/errors";
import { eventPayload, writeRoomEvents } from "@/lib/events/write-room-events";
import { LIMITS, boardContentSchemas } from "@/lib/protocol";
import { enqueueRun } from "../enqueue-run";
import type { ActiveRun } from "../run-context";
import { reserveRequest } from "./reserve-request";
import { earlierWrite, toolWriteOptions } from "./tool-call-key";
import { toolResult } from "./tool-result";

/**
 * request_agent (docs/behaviour/creative-canvas.md): writes a request on the board and queues a run of the target
 * persona with the referenced nodes selected. Chains are limited in depth, each run may
 * request once, and the new run waits its turn under the room's concurrency limit.
 */
export function createRequestAgentTool(active: ActiveRun) {
  const { database, run, agent, team, settings } = active;

  /** The answer to a request an earlier attempt of this run already wrote: the same request and run. */
  const requestedEarlier = async (entryId: string) => {
    const [queued] = await database.db
      .select({ id: runs.id, agentId: runs.agentId })
      .from(runs)
      .where(and(eq(runs.roomId, run.roomId), eq(runs.requestEntryId, entryId)));
    const target = team.find((member) => member.id === queued?.agentId);
    return {
      requestId: entryId,
      runId: queued?.id ?? null,
      status: "queued" as const,
      note: `${target?.name ?? "The agent"} was already asked; the request stands.`,
    };
  };
  return tool({
    description:
      "Ask another agent persona to respond to your work, e.g. ask the Scene Painter to illustrate your lyrics. " +
      `The requested agent is started automatically. At most ${settings.max_requests_per_run} per run.`,
    inputSchema: z.object({
      targetPersona: z
        .string()
        .min(1)
        .describe(`The persona to invoke: ${team.map((member) => `${member.persona} (${member.name})`).join(", ")}`),
      // The prompt is stored as the request's ask, so it takes the ask's limits and the model's mistakes are reported as its own.
      prompt: boardContentSchemas.request.shape.ask.describe(
        `What you want the other agent to do, with creative context (at most ${LIMITS.boardText} characters)`,
      ),
      refNodeIds: z.array(z.string()).max(20).default([]).describe("Node ids the target agent should build upon"),
    }),
    execute: (input) =>
      toolResult(async () => {
        const { targetPersona, prompt, refNodeIds } = input;
        const write = toolWriteOptions(active, "request_agent", input);
        // Looked up before the request is reserved: the earlier write has spent it already.
        const earlier = await earlierWrite(active, write.idempotencyKey, "board.posted");
        if (earlier) return requestedEarlier(earlier.payload.entry.id);
        const { target, depth, release } = reserveRequest(active, targetPersona);
        const written = writeRoomEvents(
          database.db,
          run.roomId,
          async (tx, emit, at) => {
            const unique = [...new Set(refNodeIds)];
            if (unique.length) {
              const found = await tx
                .select({ id: canvasNodes.id })
                .from(canvasNodes)
                .where(and(eq(canvasNodes.roomId, run.roomId), inArray(canvasNodes.id, unique)));
              const missing = unique.filter((id) => !found.some((node) => node.id === id));
              if (missing.length) throw badRequest(`Unknown node id(s): ${missing.join(", ")}.`);
            }
            const entry = await postBoardEntry(tx, emit, {
              roomId: run.roomId,
              kind: "request",
              content: { targetPersona, ask: prompt, refNodeIds: unique },
              author: { id: agent.id, name: agent.name, agentId: agent.id, runId: run.id },
              expiryMinutes: settings.board_expiry_minutes,
              correlationId: run.correlationId,
              requestStatus: "queued",
              at,
            });
            const [ahead] = await tx
              .select({ value: count() })
              .from(runs)
              .where(and(eq(runs.roomId, run.roomId), eq(runs.status, "queued")));
            const queued = await enqueueRun(tx, emit, {
              roomId: run.roomId,
              agentId: target.id,
              trigger: "request",
              requestedBy: { id: agent.id, name: agent.name },
              prompt: `${agent.name} asks you: ${prompt}`,
              parentRunId: run.id,
              chainDepth: depth,
              correlationId: run.correlationId,
              selectedNodeIds: unique,
              requestEntryId: entry.id,
              at,
            });
            return { entryId: entry.id, runId: queued.id, waitingAhead: Number(ahead?.value ?? 0) };
          },
          { idempotencyKey: write.idempotencyKey, carry: write.carry, change: { type: "board.posted", request: { by: agent.id, input } } },
        );
        const { result, events } = await written.catch((error) => {
          release();
          throw error;
        });
        if (!result) return requestedEarlier(eventPayload(events, "board.posted").entry.id);
        return {
          requestId: result.entryId,
          runId: result.runId,
          status: "queued" as const,
          note:
            result.waitingAhead > 0
              ? `${target.name} will start after ${result.waitingAhead} queued run(s).`
              : `${target.name} will start as soon as a slot is free.`,
        };
      }),
  });
}
