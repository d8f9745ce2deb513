// The Brainstorm personas of the offline model. Each reads its stage, the problem and the prior
// stages' artifacts as data (its task's and its sections' items, never their words), submits
// its part with the stage's tool, sometimes posts a finding, and finishes with a sentence.
// Everything it writes is made from the problem's words.
import type { PlannedCall, PlannedStep } from "../plan";
import { hashString, SeededRandom } from "../random";
import type { PastCall, ScriptReading } from "../read-prompt";
import { RANKING_CRITERIA } from "@/lib/protocol/brainstorm";
import { STAGE_SECTION_KINDS, type StageSectionItem, type StageSectionKey, stageSectionItems } from "@/lib/brainstorm/task-data";
import {
  CLUSTERS,
  COMBINATION,
  type ClusterKind,
  IDEA_MOVES,
  ideaAbout,
  PRECEDENTS,
  type ProblemCluster,
  clusterNamed,
  clustersFor,
} from "./content";
import { type ProblemWords, fill, readProblem } from "./problem";

interface StageReading {
  number: number;
  name: string;
  persona: string;
  words: ProblemWords;
  shortfall: string | null;
  focus: string | null;
  redirect: string | null;
  /** The items of the section `key`, as shown; none when the prompt did not show it. */
  section: <K extends StageSectionKey>(key: K) => StageSectionItem<K>[];
}

type IdeaLine = StageSectionItem<"ideas">;
type CandidateLine = StageSectionItem<"candidates">;
type PrecedentLine = StageSectionItem<"precedents">;

function readStage(reading: ScriptReading): StageReading | null {
  const task = reading.workflow;
  if (task?.workflow !== "brainstorm") return null;
  return {
    number: task.number,
    name: task.name,
    persona: task.persona || reading.persona,
    words: readProblem(task.problem),
    shortfall: task.shortfall ?? task.again,
    focus: task.focus,
    redirect: task.redirect,
    section: (key) => {
      const items = reading.extras.find((extra) => extra.key === key)?.items ?? [];
      const parsed = stageSectionItems[STAGE_SECTION_KINDS[key]].array().safeParse(items);
      return parsed.success ? (parsed.data as StageSectionItem<typeof key>[]) : [];
    },
  };
}

const capital = (text: string) => text[0]!.toUpperCase() + text.slice(1);
const call = (toolName: string, input: Record<string, unknown>, tag = toolName): PlannedCall => ({ tag, toolName, input });
const succeeded = (calls: PastCall[], tool: string) => calls.some((past) => past.toolName === tool && !past.failed);

/** The kind of cluster an idea (or a precedent) falls into by its words, or null when none. */
function clusterOf(text: string): ClusterKind | null {
  const lower = text.toLowerCase();
  let best: { kind: ClusterKind | null; hits: number } = { kind: null, hits: 0 };
  for (const cluster of CLUSTERS) {
    const hits = cluster.words.filter((word) => lower.includes(word)).length;
    if (hits > best.hits) best = { kind: cluster.kind, hits };
  }
  return best.kind;
}

/** The ideas in each cluster, the clusters in the order they fit the problem. */
function ideasByCluster(all: IdeaLine[], fitting: ProblemCluster[]): [ProblemCluster, IdeaLine[]][] {
  return fitting.map((cluster) => [cluster, all.filter((idea) => clusterOf(`${idea.title} ${idea.oneLiner}`) === cluster.kind)]);
}

// Stage by stage: what each persona submits.

function framing(stage: StageReading): PlannedCall[] {
  const { words } = stage;
  if (stage.persona === "cartographer") {
    return [
      call("submit_framing", {
        scopeIn: [
          fill("Every step {who} go through in {topic} today, and how long each takes", words),
          fill("What slows {topic} down, and who could change it", words),
          "Changes the team can make within one quarter",
        ],
        scopeOut: [
          fill("Replacing the tools and systems {who} already use", words),
          "Budget, hiring and headcount decisions",
          "Anything that needs another team's roadmap to change",
        ],
        constraints: [
          "No new budget beyond a few days of people's time",
          fill("It must work for the next group of {who} without special treatment", words),
          fill("Nothing may add work for {who} that does not help them", words),
        ],
      }),
    ];
  }
  const lower = /^(cut|reduce|lower|shorten|decrease|minimi[sz]e|halve|speed)/.test(words.verb);
  return [
    call("submit_framing", {
      successCriteria: [
        capital(fill(`{object} ${lower ? "is down by at least a third" : "is clearly better"} for the next group of {who}`, words)),
        fill("{Who} say, in their own words, that {topic} went better than before", words),
        fill("The people who help {who} spend no more time on it than today", words),
        "The change still holds three months later without anyone pushing it",
      ],
      keyQuestions: [
        fill("Where exactly does the time and effort in {topic} go today?", words),
        fill("What do {who} need first, and what can wait?", words),
        "Who has to change what they do for this to work?",
      ],
    }),
  ];
}

function ideas(stage: StageReading, rng: SeededRandom): PlannedCall[] {
  const moves = IDEA_MOVES[stage.persona] ?? IDEA_MOVES["first-principles-thinker"]!;
  const earlier = new Set(stage.section("earlier-ideas").map((idea) => idea.title.toLowerCase()));
  const fresh = moves.map((move) => ideaAbout(move, stage.words)).filter((idea) => !earlier.has(idea.title.toLowerCase()));
  const count = stage.shortfall ? Math.min(fresh.length, 3) : 6;
  return [call("submit_ideas", { ideas: rng.sample(fresh, count) })];
}

function precedents(stage: StageReading, rng: SeededRandom): PlannedCall[] {
  const bank = PRECEDENTS[stage.persona === "analogist" ? "analogist" : "historian"];
  const known = new Set(stage.section("precedents").map((precedent) => precedent.name));
  const fresh = bank.filter((precedent) => !known.has(precedent.name));
  return [
    call("submit_precedents", {
      precedents: rng.sample(fresh, stage.shortfall ? 2 : 3).map((precedent) => ({
        name: precedent.name,
        domain: precedent.domain,
        tried: precedent.tried,
        outcome: precedent.outcome,
        lesson: fill(precedent.lesson, stage.words),
      })),
    }),
  ];
}

/** The precedents (by id) whose story falls in one of `kinds` of cluster, at most two: what a candidate of those clusters draws on. */
function precedentsFor(precedents: PrecedentLine[], kinds: (ClusterKind | null)[]): string[] {
  return precedents
    .flatMap((precedent) => {
      const kind = clusterOf(`${precedent.name} ${precedent.domain} ${precedent.lesson} ${precedent.tried} ${precedent.outcome}`);
      return kind && kinds.includes(kind) ? [precedent.id] : [];
    })
    .slice(0, 2);
}

function convergent(stage: StageReading): PlannedCall[] {
  const all = stage.section("ideas");
  const precedentLines = stage.section("precedents");
  const existing = stage.section("candidates");
  // The biggest clusters first; of two the same size, the one that suits the problem better.
  const groups = ideasByCluster(all, clustersFor(stage.words))
    .filter(([, members]) => members.length > 0)
    .sort((a, b) => b[1].length - a[1].length);
  if (stage.persona === "connector") {
    // Combinations: an idea of one cluster with the first of the next, two by two.
    const room = Math.max(0, 8 - existing.length);
    const wanted = Math.min(room, stage.shortfall ? Math.max(2, 5 - existing.length) : 2);
    const pairs: [IdeaLine, IdeaLine][] = [];
    for (let index = 0; index + 1 < groups.length && pairs.length < wanted; index += 1) {
      const a = groups[index]![1][pairs.length % groups[index]![1].length]!;
      const b = groups[index + 1]![1][0]!;
      pairs.push([a, b]);
    }
    if (!pairs.length) return [];
    return [
      call("submit_candidates", {
        candidates: pairs.map(([a, b]) => ({
          title: `${a.title} + ${b.title}`,
          cluster: COMBINATION.name,
          summary: `${a.oneLiner.replace(/\.$/, "")}; and, together with it: ${b.oneLiner[0]!.toLowerCase()}${b.oneLiner.slice(1)}`,
          sourceIdeas: [a.id, b.id],
          precedents: precedentsFor(
            precedentLines,
            [a, b].map((idea) => clusterOf(`${idea.title} ${idea.oneLiner}`)),
          ),
          combination: true,
        })),
      }),
    ];
  }
  const clusters = groups.filter(([, members]) => members.length >= 2).slice(0, 5);
  if (!clusters.length) return [];
  return [
    call("submit_candidates", {
      candidates: clusters.map(([cluster, members]) => ({
        title: fill(cluster.title, stage.words),
        cluster: cluster.label,
        summary: `${fill(cluster.summary, stage.words)} Builds on ${members
          .slice(0, 2)
          .map((idea) => `“${idea.title}”`)
          .join(" and ")}.`,
        sourceIdeas: members.slice(0, 4).map((idea) => idea.id),
        precedents: precedentsFor(precedentLines, [cluster.kind]),
        combination: false,
      })),
    }),
  ];
}

function assumptionsFor(candidate: CandidateLine, words: ProblemWords, strict: boolean) {
  const texts = (clusterNamed(candidate.cluster, words) ?? COMBINATION).assumptions;
  return texts.map((text, index) => ({
    text: fill(text, words),
    rating: index === 0 ? (strict ? "shaky" : "solid") : strict ? "unfounded" : "shaky",
  }));
}

/**
 * What the checkers and challengers make of a candidate, by how well its cluster suits the
 * problem: the cluster that suits it least is what the Skeptic calls fatal, the next the one
 * both challengers kill, and those two and every combination are doubtful.
 */
function doubtsAbout(candidate: CandidateLine, words: ProblemWords) {
  const fitting = clustersFor(words);
  const kind = clusterNamed(candidate.cluster, words)?.kind ?? null;
  return {
    leastFitting: kind !== null && kind === fitting.at(-1)!.kind,
    killed: kind !== null && kind === fitting.at(-2)!.kind,
    doubtful: kind === null || fitting.slice(-2).some((cluster) => cluster.kind === kind),
    firstAssumption: fill((clusterNamed(candidate.cluster, words) ?? COMBINATION).assumptions[0], words).toLowerCase(),
  };
}

function factChecks(stage: StageReading): PlannedCall[] {
  const candidates = stage.section("candidates");
  const inPlay = stage.focus ? candidates.filter((candidate) => candidate.id === stage.focus) : candidates;
  const skeptic = stage.persona === "skeptic";
  return [
    call("submit_fact_checks", {
      checks: inPlay.map((candidate) => {
        const doubts = doubtsAbout(candidate, stage.words);
        const rating = skeptic && doubts.leastFitting ? "fatal" : doubts.doubtful ? "flag" : "pass";
        const note = stage.focus
          ? `Looked closer at ${candidate.title}: ${rating === "pass" ? "it holds up" : "it holds only if"} ${doubts.firstAssumption}.`
          : skeptic
            ? `${rating === "pass" ? "Sound" : rating === "flag" ? "Plausible, with a weak spot" : "Does not hold as stated"}: it assumes ${doubts.firstAssumption}.`
            : `${rating === "pass" ? "Buildable with what the team has" : "Buildable, but it needs time from people who are already busy"}.`;
        return { candidateId: candidate.id, rating, assumptions: assumptionsFor(candidate, stage.words, doubts.doubtful), note };
      }),
    }),
  ];
}

function pushback(stage: StageReading): PlannedCall[] {
  const candidates = stage.section("candidates");
  const devil = stage.persona === "devils-advocate";
  return [
    call("submit_pushback", {
      verdicts: candidates.map((candidate, index) => {
        const combination = candidate.cluster === COMBINATION.name;
        const verdict = doubtsAbout(candidate, stage.words).killed
          ? "killed"
          : devil
            ? index % 2 === 0
              ? "weakened"
              : "strong"
            : combination
              ? "weakened"
              : "strong";
        const argument =
          verdict === "killed"
            ? fill(
                `${candidate.title} does not reach what really holds {topic} back, and {who} would pay for the detour later.`,
                stage.words,
              )
            : verdict === "weakened"
              ? devil
                ? `${candidate.title} works only while someone keeps pushing it; the first busy month will undo it.`
                : `${candidate.title} does two things at once; start with one half and add the other once it works.`
              : devil
                ? `I tried to break ${candidate.title} and could not: its cost is small and its effect is visible within weeks.`
                : fill(`${candidate.title} can start next week with the people already involved in {topic}.`, stage.words);
        return { candidateId: candidate.id, verdict, argument };
      }),
    }),
  ];
}

const CRITERIA = ["impact", "feasibility", "cost", "speed", "risk"] as const;
type Criterion = (typeof CRITERIA)[number];

/** A candidate's scores as Parley totals them (see `RANKING_CRITERIA`). */
const totalOf = (scores: Record<Criterion, number>) =>
  RANKING_CRITERIA.reduce((sum, criterion) => sum + scores[criterion.key] * criterion.weight, 0);

function ranking(stage: StageReading, rng: SeededRandom): PlannedCall[] {
  const candidates = stage.section("candidates");
  const favoured = stage.redirect
    ? (CRITERIA.find((criterion) =>
        new RegExp(
          {
            impact: "impact|bold|ambitio",
            feasibility: "feasib|realistic|doable",
            cost: "cheap|cost|budget",
            speed: "fast|quick|speed|soon",
            risk: "safe|risk",
          }[criterion],
          "i",
        ).test(stage.redirect!),
      ) ?? "feasibility")
    : null;
  return [
    call("submit_ranking", {
      scores: candidates.map((candidate) => {
        const cluster = clusterNamed(candidate.cluster, stage.words);
        const base = cluster?.weighed ?? COMBINATION.scores;
        const scores = Object.fromEntries(CRITERIA.map((criterion, index) => [criterion, base[index]!])) as Record<Criterion, number>;
        if (candidate.standing?.includes("weakened")) scores.impact -= 1;
        if (candidate.standing?.includes("flagged")) scores.feasibility -= 1;
        scores.risk = Math.min(10, Math.max(1, scores.risk + (rng.int(3) - 1)));
        if (favoured)
          scores[favoured] = Math.min(10, scores[favoured] + (cluster?.kind === "visible" || cluster?.kind === "guide" ? 3 : 0));
        const strongest = CRITERIA.reduce(
          (best, criterion) => (scores[criterion] > scores[best] ? criterion : best),
          "impact" as Criterion,
        );
        return {
          candidateId: candidate.id,
          ...scores,
          rationale: `Strongest on ${strongest}${candidate.standing ? `; ${candidate.standing} after checks and pushback` : ""}${favoured ? `; weighed with the room's comment in mind` : ""}.`,
        };
      }),
    }),
  ];
}

function proposal(stage: StageReading): PlannedCall[] {
  const chosen = stage.section("chosen")[0];
  const question = stage.section("framing").find((part) => part.part === "keyQuestion")?.text;
  const doubt = stage.section("chosen-checks").find((judgement) => ["flag", "fatal", "weakened"].includes(judgement.rating))?.text;
  const title = chosen?.title ?? capital(stage.words.goal);
  const { words } = stage;
  return [
    call("submit_proposal", {
      coreConcept: `${(chosen?.summary ?? capital(words.goal)).replace(/ Builds on .*$/, "")} It answers “${question ?? fill("where does the effort in {topic} go?", words)}”`,
      steps: [
        fill("Pick the next three {who} and time every step of {topic} they go through, as it is today", words),
        fill(`Set up “${title}” for them only, with one person owning it`, words),
        fill("Meet every Friday for a month: what slowed {who} down, and what changed", words),
        fill("Keep what shortened {topic}, drop what did not, and write the result on one page", words),
        fill("Extend it to everyone who comes after them and hand ownership to the team that runs {topic}", words),
      ],
      risks: [
        {
          risk: doubt ? `${doubt}` : fill("The people who must help {who} have no time for it", words),
          mitigation: "Start with three people and one owner, so the cost is known before anyone commits more.",
        },
        {
          risk: fill("It works in the trial and fades once attention moves on", words),
          mitigation: "Give it an owner and a one-number measure reviewed monthly.",
        },
      ],
      firstAction: fill(`This week: name the owner of “${title}” and time {topic} for the next person to start.`, words),
    }),
  ];
}

/** What fact checking and pushback said of the chosen candidate, in one line. */
function checksOf(stage: StageReading, candidateId: string | undefined): string | null {
  if (!candidateId) return null;
  const said = stage
    .section("chosen-checks")
    .filter((judgement) => judgement.candidateId === candidateId)
    .map((judgement) => `${judgement.agent} said ${judgement.rating}`);
  return said.length ? `Under fact checking and pushback: ${said.join(", ")}.` : null;
}

function presentation(stage: StageReading): PlannedCall[] {
  const { words } = stage;
  const chosen = stage.section("chosen")[0];
  const ranking = stage.section("ranking");
  const proposalParts = stage.section("proposal");
  const concept = proposalParts.find((part) => part.part === "concept")?.text ?? chosen?.summary ?? "";
  const steps = proposalParts.filter((part) => part.part === "step").map((part, index) => `${index + 1}. ${part.text}`);
  const risks = proposalParts
    .filter((part) => part.part === "risk")
    .map((part) => `- **${part.text}** — ${part.mitigation ?? "watch it closely"}`);
  const first = proposalParts.find((part) => part.part === "firstAction")?.text;
  const lessons = stage
    .section("precedents")
    .slice(0, 2)
    .map((precedent) => `- ${precedent.name} (${precedent.domain}): ${precedent.lesson}`);
  const alternatives = ranking
    .filter((ranked) => !chosen || ranked.candidateId !== chosen.id)
    .map((ranked) => `- ${ranked.title} — ${ranked.score} (${ranked.standing})`);
  const markdown = [
    `# ${capital(words.goal)}`,
    "",
    "## Recommendation",
    `**${chosen?.title ?? "The top-ranked candidate"}.** ${concept}`,
    "",
    "## Reasons",
    `- It ranked first of ${ranking.length || 1} after fact checking, pushback and scoring, and the room approved it.`,
    ...(chosen?.standing || checksOf(stage, chosen?.id) ? [`- ${checksOf(stage, chosen?.id)}`] : []),
    ...lessons,
    "",
    "## Steps",
    ...(steps.length ? steps : ["1. Try it with the next three people, then decide."]),
    ...(first ? ["", `**First action:** ${first}`] : []),
    "",
    "## Risks",
    ...(risks.length ? risks : ["- It may not last without an owner."]),
    "",
    "## Alternatives",
    ...(alternatives.length ? alternatives : ["- None survived the checks."]),
  ].join("\n");
  return [call("submit_presentation", { markdown })];
}

/** The input of the stage's submission among `work`, as the persona made it. */
function submitted<T>(work: PlannedCall[], toolName: string): T | null {
  return (work.find((planned) => planned.toolName === toolName)?.input as T | undefined) ?? null;
}

/** What the Synthesizer saw: the clusters its candidates came from, biggest first, in the problem's words. */
function clustersFinding(stage: StageReading, work: PlannedCall[]): PlannedCall | null {
  const candidates = submitted<{ candidates: { cluster: string }[] }>(work, "submit_candidates")?.candidates ?? [];
  const names = candidates.map((candidate) => candidate.cluster).slice(0, 3);
  if (!names.length) return null;
  const listed = names.length === 1 ? names[0]! : `${names.slice(0, -1).join(", ")} and ${names.at(-1)}`;
  return call("post_finding", {
    finding: fill(`Most ideas about {topic} fall into a few clusters: ${listed}.`, stage.words),
    severity: "medium",
  });
}

/** What the Strategist's own scores say: which candidate leads for this problem, and which trails. */
function rankingFinding(stage: StageReading, work: PlannedCall[]): PlannedCall | null {
  const scores = submitted<{ scores: ({ candidateId: string } & Record<Criterion, number>)[] }>(work, "submit_ranking")?.scores ?? [];
  if (scores.length < 2) return null;
  const titleOf = (id: string) => stage.section("candidates").find((candidate) => candidate.id === id)?.title ?? id;
  const ranked = [...scores].sort(
    (a, b) => totalOf(b) - totalOf(a) || a.candidateId.localeCompare(b.candidateId, undefined, { numeric: true }),
  );
  const [best, worst] = [ranked[0]!, ranked.at(-1)!];
  return call("post_finding", {
    finding: fill(
      `For {topic}, “${titleOf(best.candidateId)}” scores highest and “${titleOf(worst.candidateId)}” lowest.`,
      stage.words,
    ).slice(0, 1000),
    severity: "low",
  });
}

function finding(stage: StageReading, rng: SeededRandom, work: PlannedCall[]): PlannedCall | null {
  const { words } = stage;
  switch (stage.persona) {
    case "questioner":
      return call("post_finding", {
        finding: fill("The question that decides everything: where does the time in {topic} actually go? Nobody has measured it.", words),
        severity: "medium",
      });
    case "wild-ideator":
      return call("post_finding", {
        finding: fill(`Boldest idea so far: ${rng.pick(IDEA_MOVES["wild-ideator"]!).title.replace("{topic}", words.topic)}.`, words),
        severity: "low",
      });
    case "synthesizer":
      return clustersFinding(stage, work);
    case "skeptic":
      return call("post_finding", {
        finding: fill(
          `Several candidates assume that ${fill(clustersFor(words)[0]!.assumptions[0], words).toLowerCase()}; that is plausible but unmeasured.`,
          words,
        ),
        severity: "medium",
      });
    case "strategist":
      return rankingFinding(stage, work);
    default:
      return null;
  }
}

const SUBMIT: Record<number, string> = {
  0: "submit_framing",
  1: "submit_ideas",
  2: "submit_precedents",
  3: "submit_candidates",
  4: "submit_fact_checks",
  5: "submit_pushback",
  6: "submit_ranking",
  7: "submit_proposal",
  8: "submit_presentation",
};

/** The next step of a Brainstorm persona, or null when the prompt is not a brainstorm stage's. */
export function brainstormStep(reading: ScriptReading, tools: Set<string>, pastCalls: PastCall[]): PlannedStep | null {
  const stage = readStage(reading);
  if (!stage) return null;
  const submitTool = SUBMIT[stage.number]!;
  const rng = new SeededRandom(
    hashString(`${stage.persona}|${stage.words.problem}|${stage.number}|${stage.shortfall ?? ""}|${stage.focus ?? ""}`),
  );
  if (reading.steps.length === 0 && tools.has(submitTool)) {
    const work = (() => {
      switch (stage.number) {
        case 0:
          return framing(stage);
        case 1:
          return ideas(stage, rng);
        case 2:
          return precedents(stage, rng);
        case 3:
          return convergent(stage);
        case 4:
          return factChecks(stage);
        case 5:
          return pushback(stage);
        case 6:
          return ranking(stage, rng);
        case 7:
          return proposal(stage);
        default:
          return presentation(stage);
      }
    })();
    const extra = tools.has("post_finding") && !stage.shortfall ? finding(stage, rng, work) : null;
    if (work.length) return { text: "", calls: extra ? [...work, extra] : work };
    return { text: "I have nothing to add at this stage.", calls: [] };
  }
  const submitted = pastCalls.find((past) => past.toolName === submitTool);
  const text = !submitted
    ? "I had nothing to submit."
    : succeeded(pastCalls, submitTool)
      ? `Submitted my part of ${stage.name.toLowerCase()} for “${stage.words.goal}”.`
      : `My submission was refused: ${String((submitted.output as { error?: string } | undefined)?.error ?? "it did not validate")}`;
  return { text, calls: [] };
}
