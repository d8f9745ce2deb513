import type { Brainstorm } from "@/db/schema";
import { DELIVERABLE_SECTIONS } from "@/lib/protocol/brainstorm";
import { type BrainstormWork, droppedCandidates, rankCandidates, standingOf } from "./work";

/** The sections a deliverable lacks, by name (headings of any level, any case). */
export function missingSections(markdown: string): string[] {
  const headings = [...markdown.matchAll(/^#{1,6}\s+(.+)$/gm)].map((match) => match[1]!.trim().toLowerCase());
  return DELIVERABLE_SECTIONS.filter((name) => !headings.some((heading) => heading.startsWith(name.toLowerCase())));
}

/**
 * A deliverable assembled from the artifacts, for a brainstorm whose Narrator submitted none:
 * the same sections, in plain words, saying it was assembled.
 */
export function composeDeliverable(
  brainstorm: Pick<Brainstorm, "problem" | "chosenCandidateId" | "decisions">,
  work: BrainstormWork,
): string {
  const chosen = work.candidates.find((candidate) => candidate.id === brainstorm.chosenCandidateId);
  const proposal = work.proposal;
  const ranking = rankCandidates(work, droppedCandidates(brainstorm));
  const lines = [
    `# ${brainstorm.problem.trim()}`,
    "",
    "_Assembled by Parley from the brainstorm's artifacts: the Narrator submitted no deliverable._",
    "",
    "## Recommendation",
    chosen ? `**${chosen.title}** — ${chosen.summary}` : "No candidate was approved.",
    "",
    "## Reasons",
    ...(proposal ? [proposal.coreConcept] : []),
    ...(chosen ? [`Standing after fact checking and pushback: ${standingOf(work, chosen.id).label}.`] : []),
    "",
    "## Steps",
    ...(proposal ? proposal.steps.map((step, index) => `${index + 1}. ${step}`) : ["1. Review the ranked candidates below."]),
    "",
    "## Risks",
    ...(proposal ? proposal.risks.map((risk) => `- **${risk.risk}** Mitigation: ${risk.mitigation}`) : ["- Not assessed."]),
    "",
    "## Alternatives",
    ...ranking
      .filter((candidate) => candidate.id !== chosen?.id)
      .map((candidate) => `- **${candidate.title}** (${candidate.score}) — ${candidate.summary}`),
  ];
  return lines.join("\n");
}
