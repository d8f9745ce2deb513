import { randomUUID } from "node:crypto";
import type { ToolSet } from "ai";
import { and, eq, sql } from "drizzle-orm";
import { z } from "zod";
import { buildReviews, canvasNodes, dialogues } from "@/db/schema";
import { BUILD_REVIEW_PERSONAS, verdictNextSteps } from "@/lib/build-review/advance";
import { placeNode } from "@/lib/canvas/create-node";
import { COLUMN } from "@/lib/canvas/free-spot";
import { insertNodes, newNodeRow } from "@/lib/canvas/insert-nodes";
import { badRequest } from "@/lib/errors";
import { writeRoomEvents } from "@/lib/events/write-room-events";
import { LIMITS, reviewIssueSchema } from "@/lib/protocol";
import type { ActiveRun } from "@/lib/agents/run-context";
import { writingTool } from "@/lib/agents/tools/writing-tool";

/** A review's code goes to the free spot nearest one column right of the origin, and is drawn wide. */
const CODE_ANCHOR = { x: COLUMN, y: 0 };
const CODE_WIDTH = 460;

/**
 * The tools of a build review and of dialogues, offered to the runs that play a part in them:
 * submit_code (the Coder's code, a new version each round), submit_verdict (the Reviewer's
 * structured verdict) and reply_in_dialogue (the asker says whether the answer settles it).
 * The question that opens a dialogue is every agent's (`ask_teammate`).
 */
export function createReviewTools(active: ActiveRun) {
  const { database, run, agent, team } = active;
  const purpose = run.purpose;
  if (!purpose) return {};
  const reviewId = "buildReviewId" in purpose ? purpose.buildReviewId : null;
  const tools: ToolSet = {};
  /** The review's Coder or Reviewer: whom its code and verdicts are for. */
  const teammate = (persona: string) => team.find((member) => member.persona === persona)?.id ?? null;

  if (purpose.kind === "code" && reviewId) {
    tools.submit_code = writingTool(active, "submit_code", {
      description: "Submit the complete code for review (the whole file). Each call makes a new version of the code node.",
      inputSchema: z.object({
        language: z.string().trim().min(1).max(20).describe("e.g. typescript, python"),
        code: z.string().min(1).max(LIMITS.noteText).describe(`The whole file, at most ${LIMITS.noteText} characters`),
      }),
      write: async (input, write) => {
        const { result } = await writeRoomEvents(
          database.db,
          run.roomId,
          async (tx, emit, at) => {
            const [review] = await tx.select().from(buildReviews).where(eq(buildReviews.id, reviewId)).for("update");
            if (!review) throw badRequest("This build review is gone.");
            // A step run after its review closed (retried, say) writes nothing into it.
            if (["approved", "not_approved", "cancelled"].includes(review.status)) {
              throw badRequest(`This build review has closed (${review.status.replace("_", " ")}); no more code goes into it.`);
            }
            const version = review.codeVersion + 1;
            // The review's code node, unless someone deleted it meanwhile: then the code goes to a new one.
            const [kept] = review.codeNodeId
              ? await tx
                  .select({ id: canvasNodes.id })
                  .from(canvasNodes)
                  .where(and(eq(canvasNodes.id, review.codeNodeId), eq(canvasNodes.roomId, run.roomId)))
              : [];
            const nodeId = kept?.id ?? randomUUID();
            // The version is announced first, with its code: a retried call finds it by its first
            // event, and the review's history reads each version from its own event.
            emit({
              type: "review.code",
              actor: agent,
              targetAgent: teammate(BUILD_REVIEW_PERSONAS.reviewer),
              nextSteps: ["review.verdict"],
              correlationId: run.correlationId,
              payload: { reviewId, nodeId, version, language: input.language, code: input.code },
            });
            if (kept) {
              const changes = { text: input.code, kind: "code" };
              const [updated] = await tx
                .update(canvasNodes)
                .set({ ...changes, version: sql`${canvasNodes.version} + 1`, updatedAt: at })
                .where(eq(canvasNodes.id, nodeId))
                .returning({ version: canvasNodes.version });
              emit({
                type: "node.updated",
                actor: agent,
                correlationId: run.correlationId,
                payload: { nodeId, changes, version: updated!.version, updatedAt: at.toISOString() },
              });
            } else {
              const place = await placeNode(tx, run.roomId, CODE_ANCHOR, { kind: "code", text: input.code });
              const row = newNodeRow({
                id: nodeId,
                roomId: run.roomId,
                kind: "code",
                text: input.code,
                ...place,
                width: CODE_WIDTH,
                author: active.author,
                at,
              });
              await insertNodes(tx, emit, [row], { correlationId: run.correlationId });
            }
            await tx
              .update(buildReviews)
              .set({ codeVersion: version, codeNodeId: nodeId, language: input.language })
              .where(eq(buildReviews.id, reviewId));
            return { nodeId, version };
          },
          { ...write, change: { type: "review.code", request: { by: agent.id, input } } },
        );
        return result ?? { note: "This code was submitted already." };
      },
    });
  }

  if ((purpose.kind === "review" || purpose.kind === "reply") && agent.persona === BUILD_REVIEW_PERSONAS.reviewer) {
    tools.submit_verdict = writingTool(active, "submit_verdict", {
      description:
        "Submit your verdict on the latest code version: approve, or changes with the issues (blocker, major, minor) and any open questions for the Coder.",
      inputSchema: z.object({
        verdict: z.enum(["approve", "changes"]),
        issues: z.array(reviewIssueSchema).max(20).default([]),
        openQuestions: z.array(z.string().trim().min(1).max(600)).max(5).default([]),
      }),
      write: async (input, write) => {
        await writeRoomEvents(
          database.db,
          run.roomId,
          async (tx, emit) => {
            const [review] = await tx
              .select()
              .from(buildReviews)
              .where(
                reviewId
                  ? eq(buildReviews.id, reviewId)
                  : and(eq(buildReviews.roomId, run.roomId), eq(buildReviews.correlationId, run.correlationId)),
              )
              .for("update");
            if (!review) throw badRequest("There is no build review to give a verdict on.");
            const verdict = { ...input, version: review.codeVersion, round: review.round };
            await tx.update(buildReviews).set({ lastVerdict: verdict }).where(eq(buildReviews.id, review.id));
            emit({
              type: "review.verdict",
              actor: agent,
              targetAgent: teammate(BUILD_REVIEW_PERSONAS.coder),
              nextSteps: verdictNextSteps(input, purpose.kind === "reply"),
              correlationId: run.correlationId,
              payload: { reviewId: review.id, round: review.round, version: review.codeVersion, ...input },
            });
          },
          { ...write, change: { type: "review.verdict", request: { by: agent.id, input } } },
        );
        return { verdict: input.verdict, issues: input.issues.length, openQuestions: input.openQuestions.length };
      },
    });
  }

  if (purpose.kind === "reply") {
    tools.reply_in_dialogue = writingTool(active, "reply_in_dialogue", {
      description: "Say whether the answer settles your question: satisfied true, or false with what remains.",
      inputSchema: z.object({ satisfied: z.boolean(), remaining: z.string().trim().max(600).optional() }),
      write: async (input, write) => {
        await writeRoomEvents(
          database.db,
          run.roomId,
          async (tx, emit) => {
            const [dialogue] = await tx.select().from(dialogues).where(eq(dialogues.id, purpose.dialogueId)).for("update");
            if (!dialogue || dialogue.status !== "open") throw badRequest("This dialogue has ended; there is nothing to reply to.");
            const remaining = input.satisfied ? null : (input.remaining ?? null);
            await tx.update(dialogues).set({ askerSatisfied: input.satisfied, remaining }).where(eq(dialogues.id, dialogue.id));
            emit({
              type: "dialogue.replied",
              actor: agent,
              targetAgent: dialogue.addresseeAgentId,
              // The reply itself follows as the turn ends.
              nextSteps: ["dialogue.message"],
              correlationId: run.correlationId,
              payload: { dialogueId: dialogue.id, satisfied: input.satisfied, remaining },
            });
          },
          { ...write, change: { type: "dialogue.replied", request: { by: agent.id, input } } },
        );
        return { satisfied: input.satisfied };
      },
    });
  }
  return tools;
}
