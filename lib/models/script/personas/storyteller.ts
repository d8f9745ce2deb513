// The Storyteller's plan: one step per model call, from intention to contribution.
import { beatsOf, castAs, protagonistOf, withArticle } from "../moods";
import type { Point } from "@/lib/canvas/free-spot";
import {
  aboutTopic,
  fresh,
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

/** Text to quote inside a story: without quotation marks of its own, so no quote is left open. */
const unquoted = (text: string) => text.replace(/["“”]/g, "");

export const storyteller: StepBuilder[] = [
  (context) => {
    const fragments = context.reading.canvas.filter((item) => item.kind !== "story").length;
    return intention(
      context,
      fragments
        ? `I see ${fragments} fragments on the canvas. I'll weave them into a short story.`
        : `The canvas is quiet, so I'll start a story about ${context.subject}.`,
      `Weaving ${withArticle(context.mood.name)} story about ${short(context.subject, 60)} from the canvas`,
    );
  },
  (context) => {
    const quote = context.reading.canvas.find((item) => item.kind === "lyric" || item.kind === "scene");
    const quoted = quote
      ? ` ${quote.kind === "lyric" ? "Someone was singing" : "The room looked like this"}: “${short(unquoted(quote.text.replace(/^(Verse|Chorus|Scene:)\s*/i, "")), 70)}”`
      : "";
    const answer = answerFrom(context);
    const hero = protagonistOf(
      context.reading.canvas.filter((item) => item.kind === "story").map((item) => item.text),
      context.reading.roomBrief || context.subject,
    );
    const beats = [
      `Opening: ${castAs(
        fresh(
          context,
          aboutTopic(context, (mood) => beatsOf(mood, "opening")),
        )[0]!,
        hero,
      )}${quoted}${answer ? ` (Told through ${short(unquoted(answer.text), 60)}, as ${answer.by} asked.)` : ""}`,
      `Turn: ${castAs(
        fresh(
          context,
          aboutTopic(context, (mood) => beatsOf(mood, "turn")),
        )[0]!,
        hero,
      )}`,
      `Ending: ${castAs(
        fresh(
          context,
          aboutTopic(context, (mood) => beatsOf(mood, "ending")),
        )[0]!,
        hero,
      )}`,
    ];
    const anchor = home(context);
    const points: Point[] = [];
    return {
      text: "Three beats: an opening, a turn and an ending.",
      calls: present(
        beats.map((beat, index) => {
          const point = place(
            { ...context, createdNodes: () => [...context.createdNodes(), ...points.map((p) => ({ id: "", text: "", ...p }))] },
            { x: anchor.x + index * 380, y: anchor.y },
          );
          points.push(point);
          return node(context, `beat-${index}`, "story", beat, point);
        }),
      ),
    };
  },
  (context) => {
    const beats = present([0, 1, 2].map((index) => nodeIdOf(context.past(`beat-${index}`))));
    const source = context.reading.canvas.find((item) => item.kind === "lyric" || item.kind === "scene");
    return {
      text: "Linking the beats and the work they draw on.",
      calls: present([
        edge(context, "beat-01", beats[0], beats[1], "then"),
        edge(context, "beat-12", beats[1], beats[2], "then"),
        edge(context, "draws-on", beats[0], source?.id, "draws on"),
        contribution(context, `Told a three-beat ${context.mood.name} story about ${short(context.subject, 60)}`, beats),
      ]),
    };
  },
  (context) => {
    const answered = context.request?.id ?? latestOtherContribution(context)?.id;
    const call = reaction(context, answered, `Turned this into the opening beat of a story about ${short(context.subject, 60)}`);
    return call ? { text: "", calls: [call] } : null;
  },
  finalStep("The story is on the canvas, beginning to end."),
];
