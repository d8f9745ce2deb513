import { describe, expect, it } from "vitest";
import { QUESTION_PAIRS } from "@/test/question-pairs";
import { normaliseQuestion, questionKey, sameQuestion } from "./same-question";

/** How the rule does on the labelled pairs: precision, recall and the pairs it got wrong. */
function measure() {
  let truePositives = 0;
  let falsePositives = 0;
  let falseNegatives = 0;
  const wrong: string[] = [];
  for (const pair of QUESTION_PAIRS) {
    const matched = sameQuestion({ question: pair.a, options: pair.optionsA }, { question: pair.b, options: pair.optionsB });
    if (matched && pair.same) truePositives += 1;
    if (matched && !pair.same) falsePositives += 1;
    if (!matched && pair.same) falseNegatives += 1;
    if (matched !== pair.same) wrong.push(`${pair.same ? "missed" : "wrongly matched"}: "${pair.a}" / "${pair.b}"`);
  }
  const precision = truePositives / Math.max(1, truePositives + falsePositives);
  const recall = truePositives / Math.max(1, truePositives + falseNegatives);
  return { precision, recall, truePositives, falsePositives, falseNegatives, wrong };
}

describe("recognising the same question", () => {
  it("is measured on at least 40 labelled pairs, both kinds well represented", () => {
    expect(QUESTION_PAIRS.length).toBeGreaterThanOrEqual(40);
    expect(QUESTION_PAIRS.filter((pair) => pair.same).length).toBeGreaterThanOrEqual(20);
    expect(QUESTION_PAIRS.filter((pair) => !pair.same).length).toBeGreaterThanOrEqual(20);
  });

  it("matches same-meaning questions at precision ≥ 0.95 and recall ≥ 0.8 on the labelled pairs", () => {
    const figures = measure();
    const report =
      `precision ${figures.precision.toFixed(3)}, recall ${figures.recall.toFixed(3)} on ${QUESTION_PAIRS.length} pairs ` +
      `(${figures.truePositives} matched rightly, ${figures.falsePositives} wrongly, ${figures.falseNegatives} missed)\n` +
      figures.wrong.join("\n");
    expect(figures.precision >= 0.95 && figures.recall >= 0.8, report).toBe(true);
  });

  it("normalises case, typography, contractions and a leading preamble", () => {
    expect(normaliseQuestion("  Quick question:  What’s the DEADLINE for “the draft”?! ")).toBe("what is the deadline for the draft");
    expect(normaliseQuestion("To be specific: Is the demo on Friday, or not?")).toBe("is the demo on friday");
    expect(questionKey("What's the deadline?")).toBe(questionKey("what is the deadline"));
  });

  it("counts word order only where it changes the question", () => {
    expect(sameQuestion({ question: "Neon or moonlight for the scene?" }, { question: "Moonlight or neon for the scene?" })).toBe(true);
    expect(sameQuestion({ question: "Is the chorus louder than the verse?" }, { question: "Is the verse louder than the chorus?" })).toBe(
      false,
    );
  });

  it("matches a question with too few words of its own only by its exact words", () => {
    expect(questionKey("Anything else?")).not.toBe(questionKey("Anyone else?"));
    expect(sameQuestion({ question: "Ready?" }, { question: "ready" })).toBe(true);
    expect(sameQuestion({ question: "Ready?" }, { question: "Are you ready?" })).toBe(false);
  });

  it("keeps the answer choices in the question they belong to", () => {
    expect(
      sameQuestion({ question: "Which light?", options: ["neon", "moonlight"] }, { question: "Which light?", options: ["dawn", "neon"] }),
    ).toBe(false);
    expect(
      sameQuestion(
        { question: "Should the scene be lit by neon?", options: ["yes", "something else"] },
        { question: "Should the scene be lit by neon?" },
      ),
    ).toBe(true);
  });
});
