// The Creative Curator's plan: one step per model call, from intention to contribution.
import { imagesIn, withArticle } from "../moods";
import {
  contribution,
  edge,
  finalStep,
  home,
  intention,
  latestOtherContribution,
  node,
  nodeIdOf,
  place,
  present,
  reaction,
  short,
  type StepBuilder,
} from "../plan";
import { answerFrom } from "../answers";
import { namesTopic, type Topic } from "../topic";

/**
 * Three of the images the canvas shows, one of them at least naming what the task is about
 * when the canvas shows such an image, a different three as the canvas grows (every choice of
 * three comes round once in as many nodes as there are choices), so the threads the Curator
 * names over a long run are not one label again and again.
 */
function threadOf(images: string[], canvasTotal: number, topic: Topic | null): string[] {
  if (images.length <= 3) return images;
  const all = images.flatMap((a, i) => images.slice(i + 1).flatMap((b, j) => images.slice(i + j + 2).map((c) => [a, b, c])));
  const named = all.filter((three) => three.some((image) => namesTopic(image, topic)));
  const threes = named.length ? named : all;
  // Stepping by a prime the number of threes is no multiple of reaches every three once before any comes again.
  const step = [17, 19, 23].find((prime) => threes.length % prime !== 0)!;
  return threes[(canvasTotal * step) % threes.length]!;
}

export const curator: StepBuilder[] = [
  (context) =>
    intention(
      context,
      context.reading.canvas.length
        ? `There are ${context.reading.canvas.length} pieces here. I'll name the thread that connects them.`
        : "The canvas is empty; I'll set up a space for the work to come.",
      `Grouping the canvas into ${withArticle(context.mood.name)} thread about ${short(context.subject, 60)}`,
    ),
  (context) => {
    const keywords = threadOf(
      [...new Set(context.reading.canvas.flatMap((item) => imagesIn(item.text, context.mood)))],
      context.reading.canvasTotal,
      context.topic,
    );
    const xs = context.reading.canvas.map((item) => item.x);
    const ys = context.reading.canvas.map((item) => item.y);
    const anchor = xs.length ? { x: Math.min(...xs), y: Math.min(...ys) - 220 } : home(context);
    const answer = answerFrom(context);
    const named = keywords.some((image) => namesTopic(image, context.topic));
    const label = `${named ? keywords.join(" · ") : short(context.subject, 60)}${answer ? ` (grouped ${short(answer.text, 40)})` : ""}`;
    return {
      text: "A label for the thread.",
      calls: present([
        node(context, "group", "group", `Thread: ${context.mood.name} — ${label}`, place(context, anchor), context.palette[3] ?? "#f3f0ff"),
      ]),
    };
  },
  (context) => {
    const group = nodeIdOf(context.past("group"));
    const members = context.reading.canvas.filter((item) => item.kind !== "group").slice(0, 4);
    return {
      text: members.length ? "Connecting the pieces that belong together." : "",
      calls: present([
        ...members.map((member, index) => edge(context, `member-${index}`, member.id, group, "belongs to")),
        contribution(context, `Named the ${context.mood.name} thread about ${short(context.subject, 60)}`, present([group])),
      ]),
    };
  },
  (context) => {
    const call = reaction(
      context,
      context.request?.id ?? latestOtherContribution(context)?.id,
      `Grouped this into the ${context.mood.name} thread about ${short(context.subject, 60)}`,
    );
    return call ? { text: "", calls: [call] } : null;
  },
  finalStep("The canvas has a named thread now."),
];
