import { isExternalModel } from "@/lib/external/external-model";
import { z } from "zod";
import { boardEntryToDto } from "@/lib/board/board-dto";
import { postBoardEntry } from "@/lib/board/post-entry";
import { readBoard } from "@/lib/board/read-board";
import { earlierWrite, eventPayload, writeRoomEvents } from "@/lib/events/write-room-events";
import { type BoardEntryDto, boardEntryKindSchema } from "@/lib/protocol";
import type { ActiveRun } from "../run-context";
import { refuseRepeatedExchange } from "@/lib/limits/repeated-exchanges";
import { type RequestReservation, reserveRequest } from "./reserve-request";
import { heldBackWork, isHeldBack, refuseAskingWhileAlone } from "../team";
import { toolResult } from "./tool-result";
import { readingTool, writingTool } from "./writing-tool";

const sharedKinds = z.enum(["theme", "intention", "contribution", "request", "reaction"]);

const shareInput = z.object({
  entryType: sharedKinds.describe("Type of shared context entry"),
  content: z
    .record(z.string(), z.unknown())
    .describe(
      "Structured content. theme: {mood, palette, keywords}. intention: {plan, targetArea?}. " +
        "contribution: {summary, nodeIds, mood?}. request: {targetPersona, ask, refNodeIds}. " +
        "reaction: {toEntryId, response}.",
    ),
});

/** What share_creative_context tells the model about the entry it shared. */
function sharedEntry(entry: BoardEntryDto) {
  return { entryId: entry.id, kind: entry.kind, expiresAt: entry.expiresAt };
}

/** share_creative_context and read_shared_context: the shared board (docs/behaviour/creative-canvas.md). */
export function createBoardTools(active: ActiveRun) {
  const { database, run, agent, settings } = active;
  const keyed = (input: unknown, write: { idempotencyKey: string }) => ({
    idempotencyKey: write.idempotencyKey,
    change: { type: "board.posted" as const, request: { by: agent.id, input } },
  });
  return {
    share_creative_context: writingTool<typeof shareInput, ReturnType<typeof sharedEntry>, RequestReservation>(
      active,
      "share_creative_context",
      {
        description:
          "Share a theme, intention, contribution summary, request or reaction with the other agents on this canvas. " +
          "They see it in their context and can react to it. " +
          `A request asks another persona to act; it counts towards the ${settings.max_requests_per_run} request(s) this run may make, request_agent included.`,
        inputSchema: shareInput,
        spends: {
          // A request is looked up before it is reserved: the earlier write has spent it already.
          // Any other entry written before is found by the write itself.
          earlier: async (input, write) => {
            if (input.entryType !== "request") return null;
            const earlier = await earlierWrite(database.db, run.roomId, keyed(input, write));
            return earlier ? sharedEntry(earlier.payload.entry) : null;
          },
          // A request on the board starts a run of its target later, so it spends this run's request like request_agent.
          reserve: (input) => (input.entryType === "request" ? reserveRequest(active, String(input.content.targetPersona ?? "")) : null),
        },
        write: async (input, write, reservation) => {
          const { entryType, content } = input;
          if (reservation) await refuseRepeatedExchange(active, [reservation.target], String(content.ask ?? ""));
          const { events } = await writeRoomEvents(
            database.db,
            run.roomId,
            async (tx, emit, at) => {
              // A request is checked as request_agent checks it: against who may be asked now, not when the run began.
              if (reservation) await refuseAskingWhileAlone(tx, run.roomId, agent, reservation.target);
              return postBoardEntry(tx, emit, {
                roomId: run.roomId,
                kind: entryType,
                // A request names its target as the scheduler looks it up: by persona, however the agent named it.
                content: reservation ? { ...content, targetPersona: reservation.target.persona } : content,
                author: { id: agent.id, name: agent.name, agentId: agent.id, runId: run.id },
                expiryMinutes: settings.board_expiry_minutes,
                correlationId: run.correlationId,
                // The scheduler serves open requests by starting their target; an outside agent's own client serves its own.
                requestStatus: reservation && isExternalModel(reservation.target.model) ? "queued" : undefined,
                at,
              });
            },
            { ...keyed(input, write), carry: write.carry },
          );
          return sharedEntry(eventPayload(events, "board.posted").entry);
        },
      },
    ),
    read_shared_context: readingTool({
      description: "Read the current shared creative context from other agents: themes, intentions, contributions, requests.",
      inputSchema: z.object({
        entryType: boardEntryKindSchema.optional().describe("Filter by entry type. Omit to get all."),
        limit: z.number().int().min(1).max(100).default(20).describe("Max entries to return (default: 20)"),
      }),
      execute: ({ entryType, limit }) =>
        toolResult(async () => {
          // A divergent thinker working alone reads only what it shared itself, and everyone else
          // nothing the divergent thinkers shared while their stage is under way.
          const [board, held] = await Promise.all([
            readBoard(database.db, run.roomId, { kind: entryType, limit, now: active.now() }),
            active.isolated ? null : heldBackWork(database.db, run.roomId),
          ]);
          const entries = board.filter((entry) =>
            active.isolated ? entry.agentId === agent.id : !isHeldBack(held, entry.agentId, entry.createdAt),
          );
          return {
            entries: entries.map(boardEntryToDto).map((entry) => ({
              id: entry.id,
              agent: entry.agentName,
              kind: entry.kind,
              content: entry.content,
              createdAt: entry.createdAt,
            })),
          };
        }),
    }),
  };
}
