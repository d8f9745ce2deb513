import { describe, expect, it } from "vitest";
import { MOODS } from "./moods";
import { moodAbout, namesTopic, subjectOf, topicOf } from "./topic";

describe("a task's topic", () => {
  it("is the phrase after about or of, up to the end of the sentence or the next thing asked", () => {
    expect(subjectOf("Write a song about rain on a city window at night and paint the scene it describes.")).toBe(
      "rain on a city window at night",
    );
    expect(subjectOf("Paint a scene of a lighthouse at dawn.")).toBe("a lighthouse at dawn");
    expect(subjectOf("A song about rain and the wind")).toBe("rain and the wind");
    expect(subjectOf("Tidy the canvas and name the threads that connect the work.")).toBeNull();
    const long = subjectOf(`Write about ${"a very long winding road ".repeat(6)}`)!;
    expect(long.length).toBeLessThanOrEqual(80);
    expect(long).toMatch(/road$|winding$|long$|very$|a$/);
  });

  it("names the things its phrase names, and the words a piece about it names", () => {
    expect(topicOf("rain on a city window at night")).toEqual({
      phrase: "rain on a city window at night",
      images: ["rain", "a city window", "night"],
      words: ["rain", "city", "window", "night"],
    });
    expect(topicOf("my grandmother's kitchen").words).toEqual(["grandmother", "kitchen"]);
  });

  it("tells a text that names it from one that only shares its mood", () => {
    const topic = topicOf("rain on a city window at night");
    for (const text of ["Rain taps the glass", "rainy streets", "two cities", "the windows", "nights"])
      expect(namesTopic(text, topic)).toBe(true);
    for (const text of ["A cold cup of tea", "The last bus", "Midnight", "Raindrops"]) expect(namesTopic(text, topic)).toBe(false);
    expect(namesTopic("anything at all", null)).toBe(true);
  });

  it("puts the topic's images first among a mood's, in place of those it names otherwise", () => {
    const melancholic = MOODS.find((mood) => mood.name === "melancholic")!;
    const images = moodAbout(melancholic, topicOf("rain on a city window at night")).images;
    expect(images.slice(0, 3)).toEqual(["rain", "a city window", "night"]);
    expect(images).not.toContain("window");
    expect(images).toContain("the last bus");
    expect(moodAbout(melancholic, null)).toBe(melancholic);
  });
});
