// The Scene Painter's plan: one step per model call, from intention to contribution.
import { coloursOf, imagesIn, lightOf, scenesOf, withArticle } from "../moods";
import {
  aboutTopic,
  anchorNearReferences,
  answeredEntryId,
  contribution,
  edge,
  home,
  intention,
  node,
  nodeIdOf,
  place,
  type PlanContext,
  present,
  reaction,
  requesterName,
  short,
  type StepBuilder,
  fresh,
} from "../plan";
import { answerFrom } from "../answers";

function sceneText(context: PlanContext): { main: string; detail: string } {
  const fromRefs = context.reading.referenced.flatMap((ref) => imagesIn(ref.text, context.mood));
  const images = [...new Set(fromRefs)].slice(0, 3);
  const base = fresh(context, aboutTopic(context, scenesOf))[0]!;
  const main = images.length ? `Scene: ${base}. In the foreground: ${images.join(", ")}.` : `Scene: ${base}.`;
  const answer = answerFrom(context);
  const light = answer ? answer.text : fresh(context, aboutTopic(context, lightOf))[0]!;
  const detail = `Light: ${light}${answer ? ` (as ${answer.by} suggested)` : ""}.\nColour: ${fresh(context, aboutTopic(context, coloursOf))[0]}.`;
  return { main, detail };
}

export const scenePainter: StepBuilder[] = [
  (context) => {
    if (context.request) {
      const images = [...new Set(context.reading.referenced.flatMap((ref) => imagesIn(ref.text, context.mood)))];
      return intention(
        context,
        `Reading ${requesterName(context)}'s lines — I see ${images.slice(0, 3).join(", ") || "the mood more than the objects"}. I'll paint it in ${context.mood.paletteWords}.`,
        `Painting a scene of ${short(context.subject, 60)} that illustrates ${requesterName(context)}'s ${context.mood.name} lyrics`,
      );
    }
    return intention(context, `I'll paint ${context.subject} in ${context.mood.paletteWords}.`, `Painting ${context.subject}`);
  },
  (context) => {
    const { main, detail } = sceneText(context);
    const anchor = context.request ? anchorNearReferences(context) : home(context);
    const mainPoint = place(context, anchor);
    const detailPoint = place(
      { ...context, createdNodes: () => [...context.createdNodes(), { id: "", text: "", ...mainPoint }] },
      { x: mainPoint.x, y: mainPoint.y + 250 },
    );
    const tint = context.palette[context.palette.length - 1];
    return {
      text: "Laying down the scene and its light.",
      calls: present([
        node(context, "scene", "scene", main, mainPoint, tint),
        node(context, "scene-detail", "scene", detail, detailPoint, tint),
      ]),
    };
  },
  (context) => {
    const scene = nodeIdOf(context.past("scene"));
    const detail = nodeIdOf(context.past("scene-detail"));
    const refs = context.reading.referenced;
    if (context.request && refs.length) {
      return {
        text: "Connecting the painting to the words it illustrates.",
        calls: present([
          edge(context, "illustrates", scene, refs[0]!.id, "illustrates"),
          edge(context, "echoes", detail, (refs[1] ?? refs[0])!.id, "echoes"),
        ]),
      };
    }
    return {
      text: "Sharing the scene with the team.",
      calls: present([
        edge(context, "scene-detail", scene, detail, "lit by"),
        contribution(context, `Painted ${short(context.subject, 50)} in ${context.mood.paletteWords}`, present([scene, detail])),
      ]),
    };
  },
  (context) => {
    if (!context.request) return null;
    const main = String(context.past("scene")?.input.text ?? sceneText(context).main);
    const created = present([nodeIdOf(context.past("scene")), nodeIdOf(context.past("scene-detail"))]);
    return {
      text: "",
      calls: present([
        contribution(context, `Painted a scene of ${short(context.subject, 50)} for ${requesterName(context)}'s lyrics`, created),
        reaction(
          context,
          answeredEntryId(context),
          `Created ${short(main.replace(/^Scene: /, ""), 70).toLowerCase()} with ${withArticle(context.mood.paletteWords)} palette to match the ${context.mood.name} mood`,
        ),
      ]),
    };
  },
  (context) => ({
    text: context.request
      ? `The scene now illustrates ${requesterName(context)}'s verse.`
      : "The scene is on the canvas for anyone who wants to write into it.",
    calls: [],
  }),
];
