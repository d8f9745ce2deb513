// The Creative Curator's plan: one step per model call, from intention to contribution.
import { imagesIn } from "../moods";
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
import { answerFrom } from "../asking";

export const curator: StepBuilder[] = [
  (context) =>
    intention(
      context,
      context.reading.canvas.length
        ? `There are ${context.reading.canvas.length} pieces here. I'll name the thread that connects them.`
        : "The canvas is empty; I'll set up a space for the work to come.",
      `Grouping the canvas into a ${context.mood.name} thread`,
    ),
  (context) => {
    const keywords = [...new Set(context.reading.canvas.flatMap((item) => imagesIn(item.text, context.mood)))].slice(0, 4);
    const xs = context.reading.canvas.map((item) => item.x);
    const ys = context.reading.canvas.map((item) => item.y);
    const anchor = xs.length ? { x: Math.min(...xs), y: Math.min(...ys) - 220 } : home(context);
    const answer = answerFrom(context);
    const label = `${keywords.length ? keywords.join(" · ") : context.subject}${answer ? ` (grouped ${short(answer.text, 40)})` : ""}`;
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
        contribution(context, `Named the ${context.mood.name} thread`, present([group])),
      ]),
    };
  },
  (context) => {
    const call = reaction(context, context.request?.id ?? latestOtherContribution(context)?.id, `Grouped this into the ${context.mood.name} thread`);
    return call ? { text: "", calls: [call] } : null;
  },
  finalStep("The canvas has a named thread now."),
];
