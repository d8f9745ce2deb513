import { z } from "zod";
import { askOthers, pickTargets } from "@/lib/broadcast/ask-others";
import { refuseRepeatedExchange } from "@/lib/limits/repeated-exchanges";
import { LIMITS } from "@/lib/protocol";
import type { ActiveRun } from "../run-context";
import { writingTool } from "./writing-tool";

/**
 * ask_others and respond_to_broadcast (docs/behaviour/asking-others.md), offered only when the room has
 * broadcasts on. ask_others blocks this agent until the answers are in or the room's
 * broadcast timeout passes; everyone else keeps working.
 */
export function createBroadcastTools(active: ActiveRun) {
  const { settings, team, agent } = active;
  const others = team.filter((member) => member.id !== agent.id);
  const audience =
    settings.broadcast === "human"
      ? "the people in this room (only they answer)"
      : `the other agents (${others.map((member) => member.name).join(", ")}), each answering from its own work`;
  return {
    ask_others: writingTool(active, "ask_others", {
      description:
        `Ask ${audience} a question and wait for the answers. ` +
        `Returns {status, responses: [{responder_id, content, is_human}]}; waits at most ${settings.broadcast_timeout} s.`,
      inputSchema: z.object({
        question: z.string().min(1).max(LIMITS.noteText).describe("The question, with enough context to answer it"),
        target_agents: z
          .array(z.string())
          .max(20)
          .optional()
          .describe("Names or personas of the agents to ask; everyone when omitted (ignored when people answer)"),
        options: z.array(z.string().min(1).max(80)).max(6).optional().describe("Answer choices to offer, if any"),
      }),
      // The same call in a step taken again carries on with the question it asked the first time.
      write: async (input, write, _held, { abortSignal }) => {
        if (settings.broadcast === "agents")
          await refuseRepeatedExchange(active, pickTargets(team, agent, input.target_agents), input.question);
        return askOthers(
          { database: active.database, bus: active.bus, resolveModel: active.resolveModel, modelCallPolicy: active.modelCallPolicy },
          {
            roomId: active.run.roomId,
            asker: agent,
            runId: active.run.id,
            question: input.question,
            targetAgents: input.target_agents,
            options: input.options,
            ...write,
            signal: abortSignal,
          },
        );
      },
    }),
  };
}
