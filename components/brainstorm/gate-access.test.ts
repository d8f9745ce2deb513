import { describe, expect, it } from "vitest";
import { mayDecideAtGate } from "./gate-access";

describe("who may decide at the gate, in the page", () => {
  it("is anyone seated, or an admin, when participants decide", () => {
    expect(mayDecideAtGate("participants", { seated: true, admin: false })).toBe(true);
    expect(mayDecideAtGate("participants", { seated: false, admin: true })).toBe(true);
    expect(mayDecideAtGate("participants", { seated: false, admin: false })).toBe(false);
  });

  it("is only an admin, seated or not, when the room leaves the gate to admins", () => {
    expect(mayDecideAtGate("admins", { seated: false, admin: true })).toBe(true);
    expect(mayDecideAtGate("admins", { seated: true, admin: true })).toBe(true);
    expect(mayDecideAtGate("admins", { seated: true, admin: false })).toBe(false);
  });
});
