import type { BrainstormDto } from "@/lib/protocol/brainstorm";

/**
 * Whether the person looking at the gate may decide there, as the gate's route decides it: in a
 * room whose gate is the admins', only an admin; otherwise anyone with a seat, or an admin.
 */
export function mayDecideAtGate(deciders: BrainstormDto["gateDeciders"], viewer: { seated: boolean; admin: boolean }): boolean {
  return deciders === "admins" ? viewer.admin : viewer.seated || viewer.admin;
}
