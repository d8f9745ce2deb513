// The Songwriter's plan: one step per model call, from intention to contribution.
import { chorusesOf, imagesIn, versesOf, withArticle } from "../moods";
import {
  anchorNearReferences,
  contribution,
  edge,
  home,
  intention,
  lines,
  node,
  nodeIdOf,
  place,
  present,
  reaction,
  requesterName,
  short,
  type StepBuilder,
  freshNamingTopic,
} from "../plan";
import { answerFrom, answerWords } from "../answers";

export const songwriter: StepBuilder[] = [
  (context) =>
    context.request
      ? intention(
          context,
          `${requesterName(context)} asked me: “${short(String(context.request.content.ask ?? ""), 80)}” I'll answer in ${withArticle(context.mood.name)} key.`,
          `Writing ${context.mood.name} lyrics about ${short(context.subject, 60)} for ${requesterName(context)}'s request`,
        )
      : intention(
          context,
          `I'll write ${withArticle(context.mood.name)} verse about ${context.subject}.`,
          `Writing ${withArticle(context.mood.name)} verse about ${context.subject}`,
        ),
  (context) => {
    const answer = answerFrom(context);
    const prefer = [
      ...answerWords(answer),
      ...context.subject.toLowerCase().split(/\W+/),
      ...context.reading.referenced.flatMap((ref) => imagesIn(ref.text, context.mood)),
    ].filter((word) => word.length > 3);
    // This run's share of the pools, the lines that answer or echo something first.
    const verse = lines(context.rng, freshNamingTopic(context, versesOf, 4), 4, prefer).join("\n");
    const title = answer ? `Verse — after ${answer.by}: “${short(answer.text, 80)}”` : "Verse";
    const chorus = lines(context.rng, freshNamingTopic(context, chorusesOf, context.request ? 2 : 4, 4), 4).join("\n");
    const anchor = context.request ? anchorNearReferences(context) : home(context);
    const versePoint = place(context, anchor);
    const chorusPoint = place(
      { ...context, createdNodes: () => [...context.createdNodes(), { id: "", text: "", ...versePoint }] },
      {
        x: versePoint.x,
        y: versePoint.y + 250,
      },
    );
    if (!context.tools.has("create_node")) {
      return { text: `Here is what I would put on the canvas:\n\n${title}\n${verse}\n\nChorus\n${chorus}`, calls: [] };
    }
    return {
      text: answer
        ? `Going with ${answer.by}'s answer: “${short(answer.text, 80)}”. Verse first, then the chorus.`
        : context.request
          ? "Here are the lines."
          : "Verse first, then the chorus.",
      calls: present([
        node(context, "verse", "lyric", `${title}\n${verse}`, versePoint),
        node(context, "chorus", "lyric", `Chorus\n${chorus}`, chorusPoint),
      ]),
    };
  },
  (context) => {
    const verse = nodeIdOf(context.past("verse"));
    const chorus = nodeIdOf(context.past("chorus"));
    const created = present([verse, chorus]);
    const refs = context.reading.referenced;
    return {
      text: "Sharing what I wrote so the others can build on it.",
      calls: present([
        edge(context, "verse-chorus", verse, chorus, "leads to"),
        ...(context.request ? refs.slice(0, 1).map((ref) => edge(context, "answers", verse, ref.id, "answers")) : []),
        contribution(
          context,
          context.request
            ? `Wrote ${context.mood.name} lyrics about ${short(context.subject, 60)} answering ${requesterName(context)}`
            : `Wrote a 4-line verse and a chorus about ${context.subject}`,
          created,
        ),
      ]),
    };
  },
  (context) => {
    if (context.request) {
      const call = reaction(
        context,
        context.request.id,
        `Wrote ${withArticle(context.mood.name)} verse about ${short(context.subject, 60)} from your ${context.reading.referenced.length ? "sparks" : "request"}`,
      );
      return call ? { text: "", calls: [call] } : null;
    }
    if (!context.tools.has("request_agent")) return null;
    const refNodeIds = present([nodeIdOf(context.past("verse")), nodeIdOf(context.past("chorus"))]);
    if (refNodeIds.length === 0) return null;
    const images = imagesIn(String(context.past("verse")?.input.text ?? ""), context.mood).slice(0, 2);
    return {
      text: "I'd love to see this painted.",
      calls: [
        {
          tag: "request",
          toolName: "request_agent",
          input: {
            targetPersona: "scene-painter",
            prompt: `Paint a visual scene that captures the ${context.mood.name} ${images.join(" and ") || "imagery"} from my lyrics`,
            refNodeIds,
          },
        },
      ],
    };
  },
  (context) => {
    const request = context.past("request");
    if (context.request) return { text: `Done — my answer to ${requesterName(context)} is on the canvas.`, calls: [] };
    if (request && !request.failed) {
      return { text: "The verse and chorus are on the canvas, and the Scene Painter is on its way to illustrate them.", calls: [] };
    }
    if (request?.failed) {
      const reason = (request.output as { error?: string } | undefined)?.error ?? "the request was refused";
      return { text: `The lyrics are on the canvas. I couldn't bring in the Scene Painter: ${reason}`, calls: [] };
    }
    return { text: "The verse and chorus are on the canvas.", calls: [] };
  },
];
