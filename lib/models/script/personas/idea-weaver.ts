// The Idea Weaver's plan: one step per model call, from intention to contribution.
import { sparksOf, withArticle } from "../moods";
import type { Point } from "@/lib/canvas/free-spot";
import {
  aboutTopic,
  fresh,
  contribution,
  edge,
  finalStep,
  home,
  intention,
  node,
  nodeIdOf,
  place,
  present,
  short,
  type StepBuilder,
} from "../plan";
import { answerFrom } from "../answers";
import { namesTopic } from "../topic";

export const ideaWeaver: StepBuilder[] = [
  (context) =>
    intention(
      context,
      `Let me gather a few sparks around ${context.subject}.`,
      `Gathering ${context.mood.name} sparks about ${context.subject}`,
    ),
  (context) => {
    const answer = answerFrom(context);
    const sparks = fresh(context, aboutTopic(context, sparksOf), 3).slice(0, 3);
    // The answer steers the first spark; it does not take the place of what the spark is about.
    if (answer) {
      const direction = namesTopic(answer.text, context.topic) ? short(answer.text, 80) : `${sparks[0]}, ${short(answer.text, 60)}`;
      sparks[0] = `${direction} (${answer.by}'s direction)`;
    }
    const anchor = home(context);
    const points: Point[] = [];
    const calls = sparks.map((spark, index) => {
      const point = place(
        { ...context, createdNodes: () => [...context.createdNodes(), ...points.map((p) => ({ id: "", text: "", ...p }))] },
        { x: anchor.x, y: anchor.y + index * 250 },
      );
      points.push(point);
      return node(context, `spark-${index}`, "idea", `Spark: ${spark}`, point, "#fff9db");
    });
    const theme =
      context.tools.has("share_creative_context") && !context.reading.board.some((entry) => entry.kind === "theme")
        ? {
            tag: "theme",
            toolName: "share_creative_context",
            input: {
              entryType: "theme",
              content: { mood: context.mood.name, palette: context.palette, keywords: context.mood.images.slice(0, 4) },
            },
          }
        : null;
    return { text: `Three sparks, and ${withArticle(context.mood.name)} theme for the room.`, calls: present([...calls, theme]) };
  },
  (context) => {
    const sparks = present([0, 1, 2].map((index) => nodeIdOf(context.past(`spark-${index}`))));
    const related = context.reading.canvas.filter((item) => item.kind !== "idea").slice(-2);
    return {
      text: "Tying the sparks to what is already here.",
      calls: present([
        ...related.map((target, index) => edge(context, `spark-link-${index}`, sparks[index], target.id, "sparks")),
        contribution(context, `Offered three ${context.mood.name} sparks about ${context.subject}`, sparks),
      ]),
    };
  },
  (context) => {
    if (context.request || !context.tools.has("request_agent")) return null;
    const sparks = present([0, 1, 2].map((index) => nodeIdOf(context.past(`spark-${index}`))));
    if (sparks.length === 0) return null;
    return {
      text: "The Songwriter could turn these into a chorus.",
      calls: [
        {
          tag: "request",
          toolName: "request_agent",
          input: {
            targetPersona: "songwriter",
            prompt: `Write a short chorus from these sparks about ${short(context.subject, 60)}`,
            refNodeIds: sparks,
          },
        },
      ],
    };
  },
  finalStep("The sparks are on the canvas."),
];
