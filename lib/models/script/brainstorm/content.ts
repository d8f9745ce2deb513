// What the offline brainstorm's personas know: moves to make ideas from, precedents to cite,
// clusters to sort ideas into. Every line is filled in with the problem's own words (see
// `fill`), so the same moves read as ideas about the problem typed, and the clusters are named,
// ordered and scored by how well they suit the problem (see `clustersFor`).
import { hashString } from "../random";
import { type ProblemWords, fill } from "./problem";

export interface IdeaTemplate {
  title: string;
  oneLiner: string;
}

/**
 * An ideator's move as an idea about the problem: filled with its words, and titled so that it
 * names what the problem is about — two problems never share an idea's title.
 */
export function ideaAbout(move: IdeaTemplate, words: ProblemWords): IdeaTemplate {
  const title = fill(move.title, words);
  const names = title.toLowerCase().includes(words.topic.toLowerCase());
  return { title: names ? title : `${title} for ${words.topic}`, oneLiner: fill(move.oneLiner, words) };
}

/** Each ideator's moves, in its own voice. */
export const IDEA_MOVES: Record<string, IdeaTemplate[]> = {
  "wild-ideator": [
    {
      title: "The {topic} speedrun",
      oneLiner: "Challenge {who} to a public speedrun of {topic}: the fastest path wins, and every shortcut found becomes the new default.",
    },
    {
      title: "A robot that does the setup",
      oneLiner: "An assistant does every setup step for {who} automatically before they begin, so nothing waits on a person.",
    },
    {
      title: "One loud {topic} week",
      oneLiner: "Replace the slow trickle with one week where everyone involved drops other work to celebrate and finish {topic} together.",
    },
    {
      title: "A live map on the wall",
      oneLiner: "Put a live map of {topic} on a big screen so {who} and everyone around them can see where each person is stuck.",
    },
    {
      title: "A marketplace of mentors",
      oneLiner: "Let {who} pick their own mentor from a marketplace where guides say what they can teach in an hour.",
    },
    {
      title: "Bounties for blockers",
      oneLiner: "Pay a small reward to anyone who finds a step in {topic} that makes people wait, and remove it within a week.",
    },
    {
      title: "Sandbox first, paperwork never",
      oneLiner: "Give {who} a hands-on sandbox in the first hour and let them learn by doing before reading anything.",
    },
    {
      title: "Finish something real on day one",
      oneLiner: "Make a small, real first task the point of {topic}: {who} finish something that matters before the first day ends.",
    },
  ],
  "cross-pollinator": [
    {
      title: "Pit-stop drills",
      oneLiner: "From Formula 1 crews: rehearse each step of {topic} with a stopwatch until it takes minutes, and practice every handover.",
    },
    {
      title: "Levels like a game tutorial",
      oneLiner: "From video games: teach {topic} in short levels that unlock the next, with instant feedback and a visible progress bar.",
    },
    {
      title: "A concierge who knows",
      oneLiner: "From hotels: one named concierge meets {who}, knows what they need before they ask, and removes every wait.",
    },
    {
      title: "A pilot's checklist",
      oneLiner: "From aviation: a one-page checklist for {topic} that anyone can follow, with the items that most often go wrong first.",
    },
    {
      title: "Good first issues",
      oneLiner: "From open source: label small real tasks as good first issues so {who} pick work that fits their first days.",
    },
    {
      title: "Ten-minute streaks",
      oneLiner: "From language apps: ten minutes of {topic} a day with streaks and reminders instead of one long session.",
    },
    {
      title: "Mise en place",
      oneLiner: "From restaurant kitchens: everything {who} need is laid out and ready before they start, so nothing waits on a request.",
    },
    {
      title: "Triage what matters now",
      oneLiner: "From emergency rooms: sort what {who} must know today from what can wait, and drop the rest of {topic} for now.",
    },
  ],
  "first-principles-thinker": [
    {
      title: "Time the real bottleneck",
      oneLiner: "Measure every step of {topic} for the next five of {who} and attack only the single longest wait.",
    },
    {
      title: "The smallest useful first step",
      oneLiner: "Define the smallest piece of real work {who} can finish first and build the rest of {topic} backwards from it.",
    },
    {
      title: "Access before arrival",
      oneLiner: "Every account, tool and permission {who} need is ready before they start: waiting for access is the biggest silent cost.",
    },
    {
      title: "One source of truth",
      oneLiner: "Replace scattered documents with one short, current guide to {topic} that the last person through it keeps up to date.",
    },
    {
      title: "Feedback within the hour",
      oneLiner: "Shorten every feedback loop in {topic}: whatever {who} try, someone or something answers within the hour.",
    },
    {
      title: "Learn in context",
      oneLiner: "Teach each part of {topic} at the moment it is needed, inside real work, instead of all of it up front.",
    },
    {
      title: "Defaults over decisions",
      oneLiner: "Every choice {who} face in {topic} comes with a sensible default, so nothing waits on a decision that does not matter.",
    },
    {
      title: "Pair on the real thing",
      oneLiner: "Pair {who} with an experienced colleague on real work for a few hours a day: knowledge moves fastest person to person.",
    },
  ],
  contrarian: [
    {
      title: "Stop the orientation sessions",
      oneLiner: "Drop the sessions entirely: {who} start on real work and ask when they are stuck.",
    },
    {
      title: "Let the newest teach",
      oneLiner: "Make {who} teach what they just learned to the next person: teaching is the fastest test of understanding.",
    },
    {
      title: "Slower on purpose",
      oneLiner: "Spread {topic} over more weeks but make each day lighter, so fewer things are forgotten and no one drowns.",
    },
    {
      title: "No new documents",
      oneLiner: "Write no new documents for {topic}; record short videos of real work instead and keep only what gets watched.",
    },
    {
      title: "Start before the start",
      oneLiner:
        "Begin {topic} before the first day with a friendly optional preview, so everything is ready and day one is really day two.",
    },
    {
      title: "One owner, no handovers",
      oneLiner: "One person owns {topic} end to end instead of five teams each doing a part, so no step waits on a handover.",
    },
    {
      title: "Ask instead of measuring",
      oneLiner: "Stop tracking {topic} for a month and ask {who} directly, every Friday, what slowed them down.",
    },
    {
      title: "Let them choose the order",
      oneLiner:
        "Give {who} the whole list for {topic} and let them choose the order, instead of replacing their judgement with a fixed sequence.",
    },
  ],
};

/** The kinds of answer the offline brainstorm's ideas fall into. */
export type ClusterKind = "learn" | "guide" | "wait" | "visible" | "format" | "play";

/** The criteria the Strategist scores, in this order: impact, feasibility, cost, speed, risk (1–10, higher is better). */
export type Scores = [number, number, number, number, number];

export interface ClusterTemplate {
  kind: ClusterKind;
  /** Its name, filled with the problem's words. */
  name: string;
  /** Words of an idea that put it in this cluster. */
  words: string[];
  /** Beginnings of a problem's words that this kind of answer suits ("waste" for "reduce food waste"). */
  suits: string[];
  title: string;
  summary: string;
  /** What the fact checkers doubt in a candidate of this cluster. */
  assumptions: [string, string];
  /** The Strategist's view of this kind of answer whatever the problem: feasibility, cost, speed, risk (its impact is how well it suits the problem). */
  view: [number, number, number, number];
}

/** The clusters ideas fall into, by the words they use; first match in order of hits, then of this list. */
export const CLUSTERS: ClusterTemplate[] = [
  {
    kind: "learn",
    name: "Learning by doing, for {who}",
    words: [
      "hands-on",
      "sandbox",
      "by doing",
      "real work",
      "first task",
      "real task",
      "rehearse",
      "practice",
      "in context",
      "first step",
      "finish something",
    ],
    suits: ["learn", "onboard", "skill", "train", "teach", "course", "study", "student", "junior", "newcomer", "lesson", "school"],
    title: "Real work from the first hour",
    summary: "{Who} learn {topic} by doing real work from the start, in small steps that each end in something finished.",
    assumptions: ["There is real work small enough for the first days", "{Who} can work safely before they know the whole system"],
    view: [7, 7, 7, 6],
  },
  {
    kind: "guide",
    name: "Guides for {who}",
    words: ["mentor", "buddy", "guide", "concierge", "teach", "pair", "colleague"],
    suits: [
      "support",
      "help",
      "lonel",
      "mentor",
      "retain",
      "retention",
      "communit",
      "belong",
      "wellbeing",
      "care",
      "patient",
      "parent",
      "isolat",
      "burnout",
      "welcom",
    ],
    title: "A named guide for {who}",
    summary: "Every one of {who} has a named person who knows what they need, answers quickly and teaches on the real work.",
    assumptions: ["Experienced people have a few hours a week to spare", "{Who} will ask for help when a guide is named"],
    view: [7, 5, 6, 8],
  },
  {
    kind: "wait",
    name: "Nothing waits in {topic}",
    words: ["wait", "ready", "before they", "access", "automatic", "default", "laid out", "setup"],
    suits: [
      "time",
      "wait",
      "slow",
      "fast",
      "delay",
      "queue",
      "cut",
      "shorten",
      "speed",
      "quick",
      "respon",
      "turnaround",
      "late",
      "backlog",
    ],
    title: "Everything ready before it is needed",
    summary: "Every account, tool, answer and decision {who} will need in {topic} is ready before they reach it, so no step waits.",
    assumptions: ["Most of the time in {topic} is spent waiting", "Access and setup can be prepared in advance"],
    view: [7, 6, 8, 7],
  },
  {
    kind: "visible",
    name: "{Topic} made visible",
    words: ["map", "visible", "checklist", "measure", "feedback", "progress", "stopwatch", "stuck"],
    suits: [
      "waste",
      "measur",
      "error",
      "mistake",
      "quality",
      "track",
      "data",
      "reduc",
      "energy",
      "visib",
      "accura",
      "defect",
      "lost",
      "loss",
      "usage",
      "spill",
    ],
    title: "Make {topic} visible and measured",
    summary: "Show where each of {who} is in {topic}, measure each step, and fix the step where people get stuck.",
    assumptions: ["The steps of {topic} can be measured without extra work", "Seeing where people are stuck leads someone to fix it"],
    view: [8, 7, 7, 8],
  },
  {
    kind: "format",
    name: "A lighter {topic}",
    words: ["replace", "drop", "stop", "no new", "fewer", "lighter", "one source", "choose the order", "one owner"],
    suits: [
      "meeting",
      "process",
      "paperwork",
      "cost",
      "budget",
      "simplif",
      "bureaucra",
      "email",
      "document",
      "report",
      "admin",
      "form",
      "shorter",
    ],
    title: "A lighter, shorter {topic}",
    summary: "Drop the parts of {topic} nobody needs yet and give {who} one short, current path instead of many documents and sessions.",
    assumptions: ["Much of {topic} is not needed in the first weeks", "Dropping parts will not cause mistakes later"],
    view: [6, 9, 8, 5],
  },
  {
    kind: "play",
    name: "{Topic} as a game",
    words: ["speedrun", "game", "reward", "bounty", "streak", "celebrate", "loud", "levels"],
    suits: [
      "engag",
      "particip",
      "motivat",
      "encourag",
      "fun",
      "habit",
      "exercis",
      "cycl",
      "recycl",
      "volunteer",
      "donat",
      "adopt",
      "attend",
      "more",
    ],
    title: "Make {topic} a game worth finishing",
    summary: "Turn {topic} into short levels with visible progress and small rewards, so {who} want to finish it.",
    assumptions: ["{Who} are motivated by visible progress and small rewards", "A game does not trivialise serious work"],
    view: [6, 6, 6, 5],
  },
];

/** The cluster of the Connector's candidates, which combine ideas of two others. */
export const COMBINATION = {
  name: "Combination",
  assumptions: ["The two parts reinforce each other rather than compete for time", "One team can own both"] as [string, string],
  scores: [8, 6, 5, 5, 6] as Scores,
};

/** A cluster as it fits one problem: its name in the problem's words, how well it suits it, and the scores that follow. */
export interface ProblemCluster extends ClusterTemplate {
  label: string;
  /** How many of the problem's words it suits (tens), with a tie-break drawn from the problem (units). */
  fit: number;
  weighed: Scores;
}

/** A cluster's impact on the problem, by how well it fits it, best fit first. */
const FIT_IMPACT = [9, 8, 7, 6, 5, 4];

const clamp = (value: number) => Math.min(10, Math.max(1, value));

/**
 * The clusters as they fit a problem, best fit first: each named in the problem's words, fitted
 * by the problem's words it suits ("reduce food waste" suits making waste visible, "cut
 * onboarding time" removing the waiting), ties broken by a draw from the problem's text; its
 * impact is that fit, the rest of its scores its own view, moved by the draw. The same problem
 * always gives the same.
 */
export function clustersFor(words: ProblemWords): ProblemCluster[] {
  const problemWords = words.goal
    .toLowerCase()
    .split(/[^a-z]+/)
    .filter(Boolean);
  const fitted = CLUSTERS.map((cluster) => {
    const draw = hashString(`${words.problem.toLowerCase()}|${cluster.kind}`);
    const hits = problemWords.filter((word) => cluster.suits.some((stem) => word.startsWith(stem))).length;
    return { cluster, draw, fit: hits * 10 + (draw % 10) };
  }).sort((a, b) => b.fit - a.fit || a.draw - b.draw);
  return fitted.map(({ cluster, draw, fit }, rank) => {
    const [feasibility, cost, speed, risk] = cluster.view;
    // Within one either way, as the problem draws it: how hard and how fast it is to do for this problem.
    const lean = (shift: number) => ((draw >>> shift) % 3) - 1;
    return {
      ...cluster,
      label: fill(cluster.name, words).slice(0, 80).trim(),
      fit,
      weighed: [FIT_IMPACT[rank]!, clamp(feasibility + lean(4)), cost, clamp(speed + lean(8)), risk],
    };
  });
}

/** The cluster a candidate names, as the problem names it; null for a combination or a name of another problem. */
export function clusterNamed(name: string, words: ProblemWords): ProblemCluster | null {
  return clustersFor(words).find((cluster) => cluster.label === name) ?? null;
}

export interface PrecedentTemplate {
  name: string;
  domain: string;
  tried: string;
  outcome: string;
  lesson: string;
}

export const PRECEDENTS: Record<"historian" | "analogist", PrecedentTemplate[]> = {
  historian: [
    {
      name: "WHO Surgical Safety Checklist",
      domain: "Healthcare",
      tried: "A 19-item checklist read aloud before, during and after surgery, tried in eight hospitals around the world",
      outcome: "Major complications and deaths fell by about a third",
      lesson: "A short checklist at the right moment beats memory under pressure; {topic} can have one too.",
    },
    {
      name: "Toyota's andon cord",
      domain: "Manufacturing",
      tried: "Any worker could stop the production line the moment something went wrong",
      outcome: "Problems surfaced early and were fixed at their source instead of piling up",
      lesson: "Make it easy for {who} to flag what blocks them the moment it happens.",
    },
    {
      name: "Amazon's working-backwards memos",
      domain: "Retail and technology",
      tried: "Teams wrote the press release and FAQ for a product before building anything",
      outcome: "Fewer things were built that nobody needed",
      lesson: "Start from the outcome {who} need and work backwards to the steps of {topic}.",
    },
    {
      name: "Good-first-issue labels",
      domain: "Open-source software",
      tried: "Projects labelled small, real tasks as suitable for newcomers",
      outcome: "Newcomers found a way in and more of them came back for a second contribution",
      lesson: "Small real tasks chosen in advance bring people in faster than reading about the work.",
    },
  ],
  analogist: [
    {
      name: "Formula 1 pit stops",
      domain: "Motorsport",
      tried: "Crews rehearse every role and handover until each is automatic",
      outcome: "Stops fell from over a minute in the 1950s to about two seconds",
      lesson: "Rehearsed handovers remove waiting: rehearse the handovers in {topic}.",
    },
    {
      name: "Video game tutorials",
      domain: "Game design",
      tried: "Teach one mechanic at a time inside play, with instant feedback",
      outcome: "Players master complex systems without reading a manual",
      lesson: "Teach {topic} inside the real work, one step at a time, with quick feedback.",
    },
    {
      name: "Mise en place",
      domain: "Restaurant kitchens",
      tried: "Cooks prepare and lay out every ingredient and tool before service starts",
      outcome: "Kitchens work fast under pressure without anyone searching for anything",
      lesson: "Have everything {who} need ready before they start.",
    },
    {
      name: "Ant foraging trails",
      domain: "Biology",
      tried: "Ants lay scent trails that grow stronger on paths that lead to food",
      outcome: "The colony finds short paths without any ant knowing the map",
      lesson: "Let the paths that work for {who} become the default, and let the rest fade.",
    },
  ],
};
