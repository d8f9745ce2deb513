import { randomUUID } from "node:crypto";
import type { ToolSet } from "ai";
import type { z } from "zod";
import { type Brainstorm, brainstormArtifacts } from "@/db/schema";
import { type BrainstormStep, currentDto, lockBrainstorm, saveBrainstorm } from "@/lib/brainstorm/advance-brainstorm";
import { missingSections } from "@/lib/brainstorm/deliverable";
import { addLaneNodes, FRAMING_KIND, linkNodes } from "@/lib/brainstorm/lanes";
import { SUBMIT_TOOL } from "@/lib/brainstorm/prompts";
import { candidatesInPlay } from "@/lib/brainstorm/stage-context";
import { type BrainstormWork, candidatesOfPass, readWork, scoredInPass, weightedTotal } from "@/lib/brainstorm/work";
import { badRequest } from "@/lib/errors";
import { type Emit, writeRoomEvents } from "@/lib/events/write-room-events";
import {
  type StageKey,
  candidatesSubmissionSchema,
  factChecksSubmissionSchema,
  framingSubmissionSchema,
  ideasSubmissionSchema,
  precedentsSubmissionSchema,
  presentationSubmissionSchema,
  proposalSubmissionSchema,
  pushbackSubmissionSchema,
  rankingSubmissionSchema,
  stageDefinition,
} from "@/lib/protocol/brainstorm";
import type { DbOrTx } from "@/db";
import type { ActiveRun } from "@/lib/agents/run-context";
import { writingTool } from "@/lib/agents/tools/writing-tool";

type WorkStage = Exclude<StageKey, "gate">;

/** The most ideas one ideator submits over every pass of divergent thinking (the stage's 60, shared by four). */
const IDEAS_PER_IDEATOR = stageDefinition("divergent").expect!.perAgentMax!;
const MAX_CANDIDATES = 8;

/** `wild-ideator` → `WI`: the prefix of an ideator's idea ids, so ids say nothing of the others' ideas. */
function ideaPrefix(persona: string): string {
  return persona
    .split("-")
    .map((part) => part[0]!.toUpperCase())
    .join("");
}

const nextNumber = (ids: string[], prefix: string) =>
  ids.reduce((top, id) => (id.startsWith(prefix) ? Math.max(top, Number(id.slice(prefix.length)) || 0) : top), 0) + 1;

/** What a submission turns into: the items stored (with their ids), the nodes drawn, the links, what the feed says. */
interface Accepted {
  content: Record<string, unknown>;
  nodes: { kind: string; text: string }[];
  /** Links to draw once the nodes exist: from an existing node, or from/to a new node by its index. */
  links: { from: string | { index: number }; to: string | { index: number }; label: string }[];
  summary: string;
  /** The running count of the stage's artifact, shown on its chip. */
  count: number | null;
  /** What the model is told back. */
  result: Record<string, unknown>;
}

interface Submission<S extends z.ZodType> {
  stage: WorkStage;
  description: string;
  schema: S;
  accept: (input: z.output<S>, context: { work: BrainstormWork; brainstorm: Brainstorm; active: ActiveRun }) => Accepted;
}

const byId = <T extends { id: string }>(items: T[], id: string) => items.find((item) => item.id === id);
const nodeOf = (work: BrainstormWork, candidateId: string) => byId(work.candidates, candidateId)?.nodeId ?? null;

/**
 * What ties a submission of the stages the framing feeds (divergent thinking, precedent research)
 * to it: a link from each of the framing's nodes to the submission's first node, the head of what
 * the call added, rather than one to every idea.
 */
const framedBy = (work: BrainstormWork): Accepted["links"] =>
  work.framingNodeIds.map((from) => ({ from, to: { index: 0 }, label: "framed" }));

function assertCandidates(ids: string[], inPlay: string[]): void {
  const unknown = ids.filter((id) => !inPlay.includes(id));
  if (unknown.length) throw badRequest(`Not a candidate of this stage: ${unknown.join(", ")}. Cover ${inPlay.join(", ")}.`);
}

const SUBMISSIONS = {
  framing: {
    stage: "framing",
    description:
      "Submit your part of the problem framing: scope in and out and constraints (the Cartographer), or 3–5 success criteria and exactly 3 key questions (the Questioner).",
    schema: framingSubmissionSchema,
    accept: (input) => {
      const parts = [
        input.scopeIn?.length ? `In scope: ${input.scopeIn.join("; ")}` : null,
        input.scopeOut?.length ? `Out of scope: ${input.scopeOut.join("; ")}` : null,
        input.constraints?.length ? `Constraints: ${input.constraints.join("; ")}` : null,
        input.successCriteria?.length ? `Success criteria: ${input.successCriteria.join("; ")}` : null,
        input.keyQuestions?.length ? `Key questions: ${input.keyQuestions.join(" ")}` : null,
      ].filter((part): part is string => part !== null);
      if (!parts.length) throw badRequest("Submit at least one part of the framing.");
      return {
        content: input,
        nodes: [{ kind: FRAMING_KIND, text: parts.join("\n") }],
        links: [],
        summary: "the framing",
        count: null,
        result: { submitted: Object.keys(input) },
      };
    },
  } satisfies Submission<typeof framingSubmissionSchema>,
  divergent: {
    stage: "divergent",
    description: `Submit ideas for the problem (title and one-liner each). At least 5 in all, at most ${IDEAS_PER_IDEATOR} in all, your earlier ones included; call again to add more.`,
    schema: ideasSubmissionSchema,
    accept: (input, { work, active }) => {
      const prefix = `${ideaPrefix(active.agent.persona)}-`;
      // Counted over every pass: a return to divergent thinking adds to what is there, and the stage never holds more than 60.
      const own = work.ideas.filter((idea) => idea.agentId === active.agent.id);
      const left = IDEAS_PER_IDEATOR - own.length;
      if (left <= 0) throw badRequest(`You have ${own.length} ideas, the most you may submit. Finish your turn.`);
      if (input.ideas.length > left) {
        throw badRequest(`At most ${IDEAS_PER_IDEATOR} ideas from you in all; you have ${own.length}. Submit your best ${left} or fewer.`);
      }
      let number = nextNumber(
        own.map((idea) => idea.id),
        prefix,
      );
      const ideas = input.ideas.map((idea) => ({ id: `${prefix}${number++}`, ...idea }));
      return {
        content: { ideas },
        nodes: ideas.map((idea) => ({ kind: "idea", text: `${idea.id} · ${idea.title}\n${idea.oneLiner}` })),
        links: framedBy(work),
        summary: `${ideas.length} idea${ideas.length === 1 ? "" : "s"}`,
        count: work.ideas.length + ideas.length,
        // Only its own: an ideator learns nothing of the others' ideas, nor how many there are.
        result: { accepted: ideas.map((idea) => idea.id), yourIdeas: own.length + ideas.length },
      };
    },
  } satisfies Submission<typeof ideasSubmissionSchema>,
  precedents: {
    stage: "precedents",
    description: "Submit precedents: who tried something like this, in which domain, what was tried, the outcome and the lesson.",
    schema: precedentsSubmissionSchema,
    accept: (input, { work }) => {
      let number = nextNumber(
        work.precedents.map((precedent) => precedent.id),
        "P",
      );
      const precedents = input.precedents.map((precedent) => ({ id: `P${number++}`, ...precedent }));
      return {
        content: { precedents },
        nodes: precedents.map((precedent) => ({
          kind: "precedent",
          text: `${precedent.id} · ${precedent.name} (${precedent.domain})\nTried: ${precedent.tried}\nOutcome: ${precedent.outcome}\nLesson: ${precedent.lesson}`,
        })),
        links: framedBy(work),
        summary: `${precedents.length} precedent${precedents.length === 1 ? "" : "s"}`,
        count: work.precedents.length + precedents.length,
        result: { accepted: precedents.map((precedent) => precedent.id) },
      };
    },
  } satisfies Submission<typeof precedentsSubmissionSchema>,
  convergent: {
    stage: "convergent",
    description: `Submit candidates: each a cluster of ideas (by their ids) or a combination of ideas from different clusters; ${MAX_CANDIDATES} at most in all.`,
    schema: candidatesSubmissionSchema,
    accept: (input, { work, brainstorm }) => {
      const known = new Set(work.ideas.map((idea) => idea.id));
      const unknown = input.candidates.flatMap((candidate) => candidate.sourceIdeas).filter((id) => !known.has(id));
      if (unknown.length)
        throw badRequest(
          `No idea has the id ${[...new Set(unknown)].join(", ")}; use the ids in the Ideas list (e.g. ${[...known].slice(0, 3).join(", ")}).`,
        );
      const precedentNodes = new Map(work.precedents.map((precedent) => [precedent.id, precedent.nodeId]));
      const unknownPrecedents = input.candidates.flatMap((candidate) => candidate.precedents ?? []).filter((id) => !precedentNodes.has(id));
      if (unknownPrecedents.length) {
        const listed = precedentNodes.size
          ? `use the ids in the Precedents list (e.g. ${[...precedentNodes.keys()].slice(0, 3).join(", ")})`
          : "there are no precedents: leave them out";
        throw badRequest(`No precedent has the id ${[...new Set(unknownPrecedents)].join(", ")}; ${listed}.`);
      }
      // A pass counts its own candidates: those of an earlier pass (the latest until this pass submits) are not among its 8.
      const found = candidatesOfPass(work, brainstorm.stages.convergent.passes).length;
      if (found + input.candidates.length > MAX_CANDIDATES) {
        throw badRequest(
          `At most ${MAX_CANDIDATES} candidates in all; there are ${found}. Merge, or submit at most ${MAX_CANDIDATES - found}.`,
        );
      }
      // Numbered on from the latest candidates, an earlier pass's included, so no id is given twice.
      let number = nextNumber(
        work.candidates.map((candidate) => candidate.id),
        "C",
      );
      const candidates = input.candidates.map((candidate) => ({ id: `C${number++}`, ...candidate }));
      const ideaNodes = new Map(work.ideas.map((idea) => [idea.id, idea.nodeId]));
      return {
        content: { candidates },
        nodes: candidates.map((candidate) => ({
          kind: "candidate",
          text: `${candidate.id} · ${candidate.title}\n[${candidate.cluster}] ${candidate.summary}\nFrom: ${candidate.sourceIdeas.join(", ")}${candidate.precedents?.length ? `\nDraws on: ${candidate.precedents.join(", ")}` : ""}`,
        })),
        links: candidates.flatMap((candidate, index) => [
          ...candidate.sourceIdeas.flatMap((ideaId) => {
            const node = ideaNodes.get(ideaId);
            return node ? [{ from: node, to: { index }, label: candidate.combination ? "combined into" : "clustered into" }] : [];
          }),
          ...[...new Set(candidate.precedents ?? [])].flatMap((precedentId) => {
            const node = precedentNodes.get(precedentId);
            return node ? [{ from: node, to: { index }, label: "informs" }] : [];
          }),
        ]),
        summary: `${candidates.length} candidate${candidates.length === 1 ? "" : "s"}`,
        count: found + candidates.length,
        result: { accepted: candidates.map((candidate) => candidate.id), candidates: found + candidates.length },
      };
    },
  } satisfies Submission<typeof candidatesSubmissionSchema>,
  fact_check: {
    stage: "fact_check",
    description: "Submit your checks: for each candidate, pass, flag or fatal, with its assumptions rated solid, shaky or unfounded.",
    schema: factChecksSubmissionSchema,
    accept: (input, { work, brainstorm, active }) => {
      const inPlay = candidatesInPlay(brainstorm, "fact_check", work);
      assertCandidates(
        input.checks.map((check) => check.candidateId),
        inPlay,
      );
      return {
        content: input,
        nodes: [
          {
            kind: "check",
            text: [
              `${active.agent.name}'s checks`,
              ...input.checks.map((check) => `${check.candidateId}: ${check.rating} — ${check.note}`),
            ].join("\n"),
          },
        ],
        links: input.checks.flatMap((check) => {
          const node = nodeOf(work, check.candidateId);
          return node ? [{ from: node, to: { index: 0 }, label: check.rating }] : [];
        }),
        summary: `checks of ${input.checks.map((check) => check.candidateId).join(", ")}`,
        count: null,
        result: { checked: input.checks.map((check) => check.candidateId), toCover: inPlay },
      };
    },
  } satisfies Submission<typeof factChecksSubmissionSchema>,
  pushback: {
    stage: "pushback",
    description: "Submit your verdicts: for each candidate, strong, weakened or killed, with your argument.",
    schema: pushbackSubmissionSchema,
    accept: (input, { work, brainstorm, active }) => {
      const inPlay = candidatesInPlay(brainstorm, "pushback", work);
      assertCandidates(
        input.verdicts.map((verdict) => verdict.candidateId),
        inPlay,
      );
      return {
        content: input,
        nodes: [
          {
            kind: "pushback",
            text: [
              `${active.agent.name}'s pushback`,
              ...input.verdicts.map((verdict) => `${verdict.candidateId}: ${verdict.verdict} — ${verdict.argument}`),
            ].join("\n"),
          },
        ],
        links: input.verdicts.flatMap((verdict) => {
          const node = nodeOf(work, verdict.candidateId);
          return node ? [{ from: node, to: { index: 0 }, label: verdict.verdict }] : [];
        }),
        summary: `verdicts on ${input.verdicts.map((verdict) => verdict.candidateId).join(", ")}`,
        count: null,
        result: { judged: input.verdicts.map((verdict) => verdict.candidateId), toCover: inPlay },
      };
    },
  } satisfies Submission<typeof pushbackSubmissionSchema>,
  prioritization: {
    stage: "prioritization",
    description:
      "Submit your scores, 1–10 on impact, feasibility, cost (10 = cheapest), speed and risk (10 = safest), for every candidate still in play.",
    schema: rankingSubmissionSchema,
    accept: (input, { work, brainstorm }) => {
      const inPlay = candidatesInPlay(brainstorm, "prioritization", work);
      assertCandidates(
        input.scores.map((score) => score.candidateId),
        inPlay,
      );
      const ranked = input.scores
        .map((score) => ({ ...score, total: weightedTotal(score) }))
        .sort((a, b) => b.total - a.total || a.candidateId.localeCompare(b.candidateId, undefined, { numeric: true }));
      const title = (id: string) => byId(work.candidates, id)?.title ?? id;
      // The chip counts candidates scored in this pass, by this call and the earlier ones, as the other stages count their items.
      const scored = scoredInPass(work, brainstorm.stages.prioritization.passes);
      for (const score of ranked) scored.add(score.candidateId);
      return {
        content: input,
        nodes: [
          {
            kind: "ranking",
            text: [
              "Ranking",
              ...ranked.map((score, index) => `${index + 1}. ${score.candidateId} ${title(score.candidateId)} — ${score.total}`),
            ].join("\n"),
          },
        ],
        links: ranked.slice(0, 3).flatMap((score, index) => {
          const node = nodeOf(work, score.candidateId);
          return node ? [{ from: node, to: { index: 0 }, label: `#${index + 1}` }] : [];
        }),
        summary: `scores for ${ranked.length} candidate${ranked.length === 1 ? "" : "s"}`,
        count: inPlay.filter((candidateId) => scored.has(candidateId)).length,
        result: { ranking: ranked.map((score) => ({ candidateId: score.candidateId, total: score.total })) },
      };
    },
  } satisfies Submission<typeof rankingSubmissionSchema>,
  review: {
    stage: "review",
    description: "Submit the proposal for the approved candidate: core concept, 4–6 steps, 2 risks with mitigations, and the first action.",
    schema: proposalSubmissionSchema,
    accept: (input, { work, brainstorm }) => {
      const chosen = brainstorm.chosenCandidateId ? nodeOf(work, brainstorm.chosenCandidateId) : null;
      return {
        content: input,
        nodes: [
          {
            kind: "proposal",
            text: [
              `Proposal: ${input.coreConcept}`,
              ...input.steps.map((step, index) => `${index + 1}. ${step}`),
              ...input.risks.map((risk) => `Risk: ${risk.risk} → ${risk.mitigation}`),
              `First: ${input.firstAction}`,
            ].join("\n"),
          },
        ],
        links: chosen ? [{ from: chosen, to: { index: 0 }, label: "approved" }] : [],
        summary: "the proposal",
        count: null,
        result: { submitted: true },
      };
    },
  } satisfies Submission<typeof proposalSubmissionSchema>,
  presentation: {
    stage: "presentation",
    description: "Submit the final deliverable as markdown with the sections Recommendation, Reasons, Steps, Risks and Alternatives.",
    schema: presentationSubmissionSchema,
    accept: (input, { work }) => {
      const missing = missingSections(input.markdown);
      if (missing.length)
        throw badRequest(
          `The deliverable has no ${missing.map((name) => `"## ${name}"`).join(", ")} section; add ${missing.length === 1 ? "it" : "them"}.`,
        );
      const proposal = work.proposal?.nodeId;
      return {
        content: input,
        nodes: [{ kind: "deliverable", text: input.markdown }],
        links: proposal ? [{ from: proposal, to: { index: 0 }, label: "presented in" }] : [],
        summary: "the deliverable",
        count: null,
        result: { submitted: true, characters: input.markdown.length },
      };
    },
  } satisfies Submission<typeof presentationSubmissionSchema>,
} as const;

/**
 * Stores a submission, draws it in its lane, links it to what fed it, and announces it, in one
 * room write. The announcement comes first: a retried call finds its write by its first event.
 */
async function store(
  tx: DbOrTx,
  emit: Emit,
  at: Date,
  active: ActiveRun,
  brainstorm: Brainstorm,
  stage: WorkStage,
  accepted: Accepted,
): Promise<string[]> {
  const { run, agent, team } = active;
  const nodeIds = accepted.nodes.map(() => randomUUID());
  const step: BrainstormStep = { tx, emit, at, team };
  const pass = run.purpose?.kind === "brainstorm" ? run.purpose.pass : 1;
  await tx.insert(brainstormArtifacts).values({
    id: randomUUID(),
    brainstormId: brainstorm.id,
    roomId: run.roomId,
    stage,
    pass,
    agentId: agent.id,
    agentName: agent.name,
    runId: run.id,
    content: accepted.content,
    nodeIds,
    createdAt: at,
  });
  const counted =
    accepted.count === null
      ? brainstorm
      : await saveBrainstorm(step, brainstorm, {
          stages: { ...brainstorm.stages, [stage]: { ...brainstorm.stages[stage], count: accepted.count } },
        });
  emit({
    type: "brainstorm.submitted",
    actor: agent,
    correlationId: run.correlationId,
    payload: {
      brainstormId: brainstorm.id,
      stage,
      agentId: agent.id,
      summary: accepted.summary,
      nodeIds,
      brainstorm: await currentDto(step, counted),
    },
  });
  const ideators = stageDefinition("divergent").personas;
  await addLaneNodes(tx, emit, {
    roomId: run.roomId,
    stage,
    subColumn: stage === "divergent" ? Math.max(0, ideators.indexOf(agent.persona)) : 0,
    laneTop: brainstorm.laneTop,
    author: agent,
    correlationId: run.correlationId,
    at,
    nodes: accepted.nodes.map((node, index) => ({ ...node, id: nodeIds[index] })),
  });
  const resolve = (end: string | { index: number }) => (typeof end === "string" ? end : nodeIds[end.index]);
  await linkNodes(tx, emit, {
    roomId: run.roomId,
    author: agent,
    correlationId: run.correlationId,
    at,
    links: accepted.links.flatMap((link) => {
      const from = resolve(link.from);
      const to = resolve(link.to);
      return from && to ? [{ from, to, label: link.label }] : [];
    }),
  });
  return nodeIds;
}

/**
 * The tool a brainstorm stage run submits its work with (one per stage, its input checked by
 * the stage's schema and then against the brainstorm: ids that exist, candidates in play,
 * counts within bounds). A submission after its stage has ended is refused.
 */
export function createBrainstormTools(active: ActiveRun): ToolSet {
  const purpose = active.run.purpose;
  if (purpose?.kind !== "brainstorm" || purpose.stage === "gate") return {};
  const submission: Submission<z.ZodType> = SUBMISSIONS[purpose.stage] as unknown as Submission<z.ZodType>;
  const name = SUBMIT_TOOL[purpose.stage];
  return {
    [name]: writingTool(active, name, {
      description: submission.description,
      inputSchema: submission.schema,
      write: async (input: unknown, write) => {
        const { result } = await writeRoomEvents(
          active.database.db,
          active.run.roomId,
          async (tx, emit, at) => {
            const brainstorm = await lockBrainstorm(tx, purpose.brainstormId);
            const state = brainstorm?.stages[purpose.stage];
            if (!brainstorm || state?.status !== "running" || state.passes !== purpose.pass) {
              throw badRequest("This stage has ended; your submission was not taken. Finish your turn.");
            }
            const work = await readWork(tx, brainstorm.id);
            const accepted = submission.accept(input, { work, brainstorm, active });
            const nodeIds = await store(tx, emit, at, active, brainstorm, purpose.stage as WorkStage, accepted);
            return { ...accepted.result, nodeIds };
          },
          { ...write, change: { type: "brainstorm.submitted", request: { by: active.agent.id, stage: purpose.stage, input } } },
        );
        return result ?? { note: "This was submitted already." };
      },
    }),
  };
}
