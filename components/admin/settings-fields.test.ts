import { describe, expect, it } from "vitest";
import { roomSettingsSchema } from "@/lib/rooms/room-settings";
import { SETTING_GROUPS } from "./settings-fields";

describe("the dashboard's settings form", () => {
  it("lets an admin edit every room setting, each once", () => {
    const listed = SETTING_GROUPS.flatMap((group) => group.fields.map((field) => field.key));
    expect([...listed].sort()).toEqual(Object.keys(roomSettingsSchema.shape).sort());
    expect(new Set(listed).size).toBe(listed.length);
  });
});
