import { describe, expect, it } from "vitest";
import { DEFAULT_CONCERN_PHRASES, type DialogueMember, detectAddressee, proseOf, textSatisfied, textVerdict } from "./detect";
import { LABELLED, type LabelledMessage, TEAM } from "@/test/dialogue-messages";

const member = (persona: string) => TEAM.find((candidate) => candidate.persona === persona)!;

function ours(message: LabelledMessage): string | null {
  const speaker = member(message.speaker);
  const review =
    message.speaker === "reviewer" && message.approves !== undefined ? { approves: message.approves, authorId: "c" } : undefined;
  return detectAddressee(message.text, { speaker, team: TEAM, review, concernPhrases: DEFAULT_CONCERN_PHRASES })?.addressee.persona ?? null;
}

/** The substring rule as other systems run it: mentions and "name," anywhere, any `?` is a question to the architect, concern words from the reviewer go to the coder unless it says "approved". */
function substringRule(message: LabelledMessage): string | null {
  const lower = message.text.toLowerCase();
  const others = TEAM.filter((candidate: DialogueMember) => candidate.persona !== message.speaker);
  for (const other of others) if (lower.includes(`@${other.persona}`)) return other.persona;
  for (const other of others) if (lower.includes(`${other.persona},`)) return other.persona;
  if (message.text.includes("?")) return message.speaker === "architect" ? "coder" : "architect";
  if (message.speaker === "reviewer" && DEFAULT_CONCERN_PHRASES.some((phrase) => lower.includes(phrase)) && !lower.includes("approved"))
    return "coder";
  return null;
}

function score(detect: (message: LabelledMessage) => string | null) {
  let truePositives = 0;
  let detected = 0;
  const positives = LABELLED.filter((message) => message.expected !== null).length;
  const wrong: string[] = [];
  for (const message of LABELLED) {
    const found = detect(message);
    if (found !== null) detected += 1;
    if (found !== null && found === message.expected) truePositives += 1;
    if (found !== message.expected)
      wrong.push(`${message.speaker}: ${message.text.slice(0, 50)} → ${found} (expected ${message.expected})`);
  }
  return { precision: truePositives / detected, recall: truePositives / positives, wrong };
}

describe("dialogue detection", () => {
  it("finds whom a message addresses with precision and recall of at least 0.9, well above a substring rule", () => {
    expect(LABELLED.length).toBeGreaterThanOrEqual(40);
    const mine = score(ours);
    const substring = score(substringRule);
    console.log(
      `dialogue detection on ${LABELLED.length} labelled messages: precision ${mine.precision.toFixed(2)}, recall ${mine.recall.toFixed(2)}; ` +
        `substring rule: precision ${substring.precision.toFixed(2)}, recall ${substring.recall.toFixed(2)}`,
    );
    expect(mine.wrong).toEqual([]);
    expect(mine.precision).toBeGreaterThanOrEqual(0.9);
    expect(mine.recall).toBeGreaterThanOrEqual(0.9);
    expect(substring.precision).toBeLessThan(mine.precision);
  });

  describe("the cases a substring rule gets wrong, each on the function that would misread it", () => {
    const reviewer = member("reviewer");
    const coder = member("coder");
    const fromReviewer = (text: string, approves: boolean) =>
      detectAddressee(text, {
        speaker: reviewer,
        team: TEAM,
        review: { approves, authorId: coder.id },
        concernPhrases: DEFAULT_CONCERN_PHRASES,
      });

    it("'not approved' in prose approves nothing and asks no one", () => {
      const text = "This is not approved: the parser drops the last line.";
      expect(textVerdict(text)).toBeNull();
      expect(textSatisfied(text)).toBe(false);
      expect(fromReviewer(text, false)).toBeNull();
    });

    it("'LGTM … no issues' approves nothing without a VERDICT line, and raises no concern", () => {
      const text = "LGTM. Error handling is thorough, no issues.";
      expect(textVerdict(text)).toBeNull();
      expect(textVerdict(`${text}\nVERDICT: APPROVE`)).toBe("approve");
      // Read as a review that states no verdict (so asks for changes): its words still address no one.
      expect(fromReviewer(text, false)).toBeNull();
      expect(fromReviewer(text, true)).toBeNull();
    });

    it("a '?' inside code opens no dialogue", () => {
      const text = "The guard reads `const x = ok ? a : b;` and that is fine.";
      expect(proseOf(text)).not.toContain("?");
      expect(fromReviewer(text, false)).toBeNull();
      expect(fromReviewer(text, true)).toBeNull();
      expect(fromReviewer("```ts\nconst x = ok ? a : b;\n```", false)).toBeNull();
      expect(textSatisfied("Thanks. `const x = ok ? a : b;` reads well.")).toBe(true);
    });

    it("a question naming no one, in a review that does not approve, goes to the Coder whose work it reviews, not the Architect", () => {
      const text = "Why a map and not a list?";
      expect(fromReviewer(text, false)).toEqual({ addressee: coder, reason: "question", sentence: text });
      // Approving, it asks no one; from a teammate outside a review, nor does it.
      expect(fromReviewer(text, true)).toBeNull();
      expect(detectAddressee(text, { speaker: member("architect"), team: TEAM, concernPhrases: DEFAULT_CONCERN_PHRASES })).toBeNull();
      // A question that names a teammate still goes to that teammate.
      expect(fromReviewer("Did the architect ask for a map?", false)).toMatchObject({ addressee: member("architect"), reason: "question" });
    });

    it("'Added the submit button. Agreed.' agrees: 'button' is no 'but', and it asks no one", () => {
      const text = "Added the submit button. Agreed.";
      expect(textSatisfied(text)).toBe(true);
      expect(textSatisfied("Added the submit button, but it is not agreed.")).toBe(false);
      expect(textVerdict(text)).toBeNull();
      expect(detectAddressee(text, { speaker: coder, team: TEAM, concernPhrases: DEFAULT_CONCERN_PHRASES })).toBeNull();
    });

    it("'Thanks, no further questions.' is satisfied, and asks no one", () => {
      const text = "Thanks, no further questions.";
      expect(textSatisfied(text)).toBe(true);
      expect(textVerdict(text)).toBeNull();
      expect(fromReviewer(text, true)).toBeNull();
      expect(fromReviewer(text, false)).toBeNull();
    });
  });

  it("reads names as the rest of Parley does: without regard to case, spaces or dashes", () => {
    const painter = { id: "p", name: "Scene Painter", persona: "scene-painter", role: "Visual artist" };
    const team = [painter, { id: "s", name: "Songwriter", persona: "songwriter", role: "Lyricist" }];
    const from = (text: string) => detectAddressee(text, { speaker: team[1]!, team, concernPhrases: DEFAULT_CONCERN_PHRASES });
    expect(from("ScenePainter, which light should the verse have?")).toMatchObject({ addressee: painter, reason: "vocative" });
    expect(from("Over to @scene_painter for the light.")).toMatchObject({ addressee: painter, reason: "mention" });
    expect(from("Should the scene-painter use dusk?")).toMatchObject({ addressee: painter, reason: "question" });
    expect(from("The scene painters' guild met today?")).toBeNull();
  });

  it("hears a concern only in the room's own phrases, only in a review that does not approve", () => {
    const reviewer = member("reviewer");
    const coder = member("coder");
    const context = (approves: boolean, concernPhrases: readonly string[]) => ({
      speaker: reviewer,
      team: TEAM,
      review: { approves, authorId: coder.id },
      concernPhrases,
    });
    const text = "The naming is unclear. The loop smells off.";
    expect(detectAddressee(text, context(false, ["smells off"]))).toEqual({
      addressee: coder,
      reason: "concern",
      sentence: "The loop smells off.",
    });
    expect(detectAddressee(text, context(false, DEFAULT_CONCERN_PHRASES))).toMatchObject({
      reason: "concern",
      sentence: "The naming is unclear.",
    });
    expect(detectAddressee("The loop is fine.", context(false, ["smells off"]))).toBeNull();
    expect(detectAddressee(text, context(true, ["smells off"]))).toBeNull();
  });

  it("reads no code, inline code or links as speech", () => {
    expect(proseOf("see `a ? b : c` and https://x.test/?q=1 and ```\n@coder?\n```").includes("?")).toBe(false);
  });

  it("approves only on a VERDICT line, never on a word in prose", () => {
    expect(textVerdict("This is not approved: the parser drops the last line.")).toBeNull();
    expect(textVerdict("LGTM. Error handling is thorough, no issues.")).toBeNull();
    expect(textVerdict("All good.\nVERDICT: APPROVE")).toBe("approve");
    expect(textVerdict("VERDICT: changes\nThe loop never ends.")).toBe("changes");
    expect(textVerdict("```\nVERDICT: APPROVE\n```")).toBeNull();
  });

  it("reads satisfaction from thanks or 'that clarifies' with nothing left to ask and no doubt near it", () => {
    expect(textSatisfied("Thanks, no further questions.")).toBe(true);
    expect(textSatisfied("Got it, that makes sense. Approved.")).toBe(true);
    expect(textSatisfied("Added the submit button. Agreed, thanks.")).toBe(true);
    expect(textSatisfied("Thanks, but the parser still drops the last line.")).toBe(false);
    expect(textSatisfied("That clarifies the loop. What about the cache?")).toBe(false);
    expect(textSatisfied("I see. The recursion is still unbounded.")).toBe(false);
    expect(textSatisfied("Thanks — `x ? y : z` reads fine now.")).toBe(true);
  });
});
