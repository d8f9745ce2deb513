import { z } from "zod";
import { findingToDto } from "@/lib/findings/finding-dto";
import { postFinding } from "@/lib/findings/post-finding";
import { updateKnowledge } from "@/lib/knowledge/update-knowledge";
import { LIMITS, findingSeveritySchema } from "@/lib/protocol";
import type { ActiveRun } from "../run-context";
import { writingTool } from "./writing-tool";

/** post_finding and update_knowledge: what the team learns, and what the agent remembers across rooms. */
export function createMemoryTools(active: ActiveRun) {
  const { database, run, agent, settings } = active;
  return {
    post_finding: writingTool(active, "post_finding", {
      description:
        "Share a finding with the whole team: a problem, a risk, an insight about the work. It stays on the room's findings board " +
        "and every agent sees the newest ones. Severity: high only for what should change the team's direction " +
        `(at most ${settings.max_high_findings_per_run} per run), medium for what others should act on, low for observations.`,
      inputSchema: z.object({
        finding: z.string().describe(`What you found, in 1 to ${LIMITS.findingText} characters`),
        severity: findingSeveritySchema.describe("low, medium or high"),
        nodeIds: z.array(z.string()).max(30).optional().describe("Nodes the finding is about"),
      }),
      write: async (input, write) => {
        const posted = await postFinding(
          database.db,
          { roomId: run.roomId, run, agent: { id: agent.id, name: agent.name }, finding: input, settings },
          write,
        );
        const finding = findingToDto(posted.entry);
        return {
          findingId: finding.id,
          severity: finding.severity,
          ...(posted.repeated ? { note: "You posted this finding a moment ago; it stands and was not posted again." } : {}),
        };
      },
    }),
    update_knowledge: writingTool(active, "update_knowledge", {
      description:
        "Remember something for your future runs: an insight you learned, and/or expertise gained in an area " +
        '(e.g. area "song-structure", amount 3). Your knowledge is shown to you at the start of every run. An insight stays in ' +
        "this room unless you mark it general: a general one goes with you to rooms of other people, so it must be a lesson " +
        "in your own words, without this room's task, names, code or dialogue.",
      inputSchema: z.object({
        insight: z.string().optional().describe(`What you learned, at most ${LIMITS.insightText} characters`),
        general: z.boolean().optional().describe("true: a general lesson for your other rooms too (no task, names or quotes from here)"),
        area: z.string().max(80).optional().describe('An area of expertise, e.g. "harbour scenes"'),
        amount: z.number().int().min(1).max(10).optional().describe("How much expertise you gained, 1 to 10 (default 1)"),
      }),
      write: async (input, write) => {
        const updated = await updateKnowledge(
          database.db,
          { roomId: run.roomId, agent, correlationId: run.correlationId, update: input },
          write,
        );
        return { insight: updated.insight, area: updated.area, level: updated.level };
      },
    }),
  };
}
