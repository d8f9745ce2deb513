import { describe, expect, it } from "vitest";
import { pickTargets } from "@/lib/broadcast/ask-others";
import { parseCommand } from "@/lib/commands/parse-command";
import { DEFAULT_CONCERN_PHRASES, detectAddressee } from "@/lib/dialogue/detect";
import { agentRow } from "@/test/builders";
import { findTeammate, nameKey, teammateAt } from "./find-teammate";

const team = [
  agentRow({ id: "a1", name: "Songwriter", persona: "songwriter", role: "Lyricist" }),
  agentRow({ id: "a2", name: "Scene Painter", persona: "scene-painter", role: "Visual artist" }),
  agentRow({ id: "a3", name: "Scene", persona: "scene", role: "Set" }),
  agentRow({ id: "a4", name: "Wild Ideator", persona: "wild-ideator", role: "Ideator" }),
];

describe("findTeammate", () => {
  it("finds a teammate by name or persona, without regard to case, spaces, dashes or underscores", () => {
    for (const text of ["Scene Painter", "ScenePainter", "scene-painter", "SCENE_PAINTER", "  scene painter ", "@ScenePainter"]) {
      expect(findTeammate(team, text)?.id, text).toBe("a2");
    }
    expect(findTeammate(team, "wildideator")?.id).toBe("a4");
    expect(findTeammate(team, "Scene")?.id).toBe("a3");
  });

  it("finds a teammate by its id", () => {
    expect(findTeammate(team, "a4")?.name).toBe("Wild Ideator");
  });

  it("names nobody for a part of a name, a name with more after it, a role or nothing", () => {
    for (const text of ["Painter", "Scene Painter please", "Songwriters", "Lyricist", "", "  ", "-"])
      expect(findTeammate(team, text), text).toBeNull();
  });

  it("compares names as nameKey does", () => {
    expect(nameKey("Scene - Painter_2")).toBe("scenepainter2");
  });
});

describe("teammateAt", () => {
  it("reads the longest name at the start of the text, ending where a word ends", () => {
    expect(teammateAt("Scene Painter: paint the harbour", team)).toEqual({ member: team[1], end: 13 });
    expect(teammateAt("ScenePainter, paint", team)).toEqual({ member: team[1], end: 12 });
    expect(teammateAt("Scene paint", team)).toEqual({ member: team[2], end: 5 });
    expect(teammateAt("Songwriters unite", team)).toBeNull();
    expect(teammateAt("scene-painters", team)).toBeNull();
    expect(teammateAt("the Songwriter", team)).toBeNull();
  });

  it("reads a role only when asked to", () => {
    expect(teammateAt("Lyricist, a verse", team)).toBeNull();
    expect(teammateAt("Lyricist, a verse", team, { withRole: true })?.member.id).toBe("a1");
  });
});

describe("naming a teammate", () => {
  it("takes the same names in the command bar, ask_others' targets and an agent's words", () => {
    for (const name of ["ScenePainter", "scene painter", "Scene-Painter"]) {
      expect(parseCommand(`@${name} paint the harbour`, team), name).toMatchObject({ agentId: "a2" });
      expect(
        pickTargets(team, team[0]!, [name]).map((agent) => agent.id),
        name,
      ).toEqual(["a2"]);
      expect(
        detectAddressee(`${name}, which light?`, { speaker: team[0]!, team, concernPhrases: DEFAULT_CONCERN_PHRASES })?.addressee.id,
        name,
      ).toBe("a2");
    }
    expect(pickTargets(team, team[0]!, ["a4"]).map((agent) => agent.id)).toEqual(["a4"]);
    expect(() => pickTargets(team, team[0]!, ["Painter"])).toThrow(/Unknown target agent\(s\): Painter/);
  });
});
