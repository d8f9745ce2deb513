import type { ToolSet } from "ai";
import { and, eq } from "drizzle-orm";
import { z } from "zod";
import { buildReviews, dialogues } from "@/db/schema";
import { refuseAskingWhileAlone } from "@/lib/agents/team";
import { askedTeammate, openDialogue } from "@/lib/dialogue/open-dialogue";
import { badRequest } from "@/lib/errors";
import { firstEvent, writeRoomEvents } from "@/lib/events/write-room-events";
import { refuseRepeatedExchange } from "@/lib/limits/repeated-exchanges";
import { findTeammate } from "@/lib/agents/find-teammate";
import type { ActiveRun } from "@/lib/agents/run-context";
import { writingTool } from "@/lib/agents/tools/writing-tool";

/**
 * ask_teammate: a question put to one teammate, which opens a dialogue with it — the teammate
 * answers, the asker replies, for the room's `dialogue_max_rounds` rounds at most. Offered to
 * every agent's runs in every room while dialogues are on, except to a dialogue's own turns and
 * to a build review's code steps (the Coder asks before it writes). One question a run; the room
 * holds at most `max_open_dialogues` dialogues at once. In a build review the Coder's question in
 * its ready step is its one clarification, and the review waits for the Coder's or the Reviewer's
 * dialogue before it goes on.
 */
export function createAskTeammateTool(active: ActiveRun): ToolSet {
  const { database, run, agent, team, settings } = active;
  const kind = run.purpose?.kind;
  if (settings.dialogue_max_rounds === 0 || kind === "answer" || kind === "reply" || kind === "code") return {};
  const others = team.filter((member) => member.id !== agent.id);
  if (others.length === 0) return {};
  // The review this question belongs to: the Coder's ready step and the Reviewer's review wait for its dialogue.
  const reviewId =
    run.purpose && (kind === "ready" || kind === "review") && "buildReviewId" in run.purpose ? run.purpose.buildReviewId : null;
  const clarifying = reviewId !== null && kind === "ready";
  const choices = others.map((member) => `${member.name} (${member.persona})`).join(", ");

  return {
    ask_teammate: writingTool(active, "ask_teammate", {
      description:
        "Put one question to a teammate directly. They answer in a short dialogue and you reply to their answer " +
        `(at most ${settings.dialogue_max_rounds} round${settings.dialogue_max_rounds === 1 ? "" : "s"}). One question a run; ` +
        (clarifying ? "finish your turn after asking: you write the code once the dialogue ends." : "carry on with your work meanwhile."),
      inputSchema: z.object({
        target: z.string().trim().min(1).max(80).describe(`Who to ask, by name or persona: ${choices}`),
        question: z.string().trim().min(1).max(600).describe("The question, with what they need to answer it"),
      }),
      write: async (input, write) => {
        const target = findTeammate(others, input.target);
        if (!target) throw badRequest(`${input.target} is not a teammate you can ask. Ask one of: ${choices}.`);
        await refuseRepeatedExchange(active, [target], input.question);
        const { events, duplicate } = await writeRoomEvents(
          database.db,
          run.roomId,
          async (tx, emit, at) => {
            // The team the run was given may be older than the stage under way: who may be asked is read here.
            await refuseAskingWhileAlone(tx, run.roomId, agent, target);
            if (await askedTeammate(tx, run))
              throw badRequest("You have asked your question in this run already; carry on with what you know.");
            if (reviewId) {
              const [review] = await tx.select().from(buildReviews).where(eq(buildReviews.id, reviewId)).for("update");
              if (!review) throw badRequest("This build review is gone.");
              if (clarifying && (review.clarified || review.status === "in_dialogue")) {
                throw badRequest("You have asked your one question already; finish your turn, and you will write the code next.");
              }
              const [open] = await tx
                .select({ id: dialogues.id })
                .from(dialogues)
                .where(and(eq(dialogues.buildReviewId, reviewId), eq(dialogues.status, "open")))
                .limit(1);
              if (open) throw badRequest("A dialogue of this review is under way; carry on with what you know.");
            }
            const dialogue = await openDialogue(tx, emit, {
              roomId: run.roomId,
              correlationId: run.correlationId,
              asker: agent,
              addressee: target,
              topic: input.question,
              reason: "question",
              settings,
              buildReviewId: reviewId,
              chainDepth: run.chainDepth,
              parentRunId: run.id,
              at,
            });
            if (!dialogue) {
              const open = settings.max_open_dialogues;
              throw badRequest(`The room has ${open} dialogue${open === 1 ? "" : "s"} under way already; carry on with what you know.`);
            }
            if (clarifying) {
              await tx.update(buildReviews).set({ status: "in_dialogue", clarified: true }).where(eq(buildReviews.id, reviewId));
            }
          },
          { ...write, change: { type: "dialogue.opened", request: { by: agent.id, input } } },
        );
        const next = clarifying
          ? "Finish your turn now; you will write the code once the dialogue ends."
          : "You will be asked to reply once they have answered; carry on with your work meanwhile.";
        // A call taken again (its step retried) finds the dialogue its first write opened.
        const opened = firstEvent(events, "dialogue.opened").payload.dialogue;
        return {
          dialogueId: opened.id,
          note: duplicate ? `You asked ${target.name} this already. ${next}` : `${target.name} will answer. ${next}`,
        };
      },
    }),
  };
}
