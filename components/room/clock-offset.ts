/**
 * Below this, a difference between the server's clock and the device's is taken as none: the
 * reading arrives late by its trip over the network, so it is never exact, and a countdown in
 * whole seconds is right to within one either way.
 */
const NEGLIGIBLE_MS = 1_000;

/**
 * How far the server's clock is ahead of this device's (ms; negative when behind), from one
 * reading: the server's time as it sent something, and this device's time as it arrived. A
 * device whose clock is seconds or minutes off is put right; one within a second of the
 * server's is left as it is (0), as is any reading whose time cannot be read.
 */
export function clockOffset(serverTime: string, receivedAt: number): number {
  const server = Date.parse(serverTime);
  if (!Number.isFinite(server)) return 0;
  const offset = server - receivedAt;
  return Math.abs(offset) < NEGLIGIBLE_MS ? 0 : offset;
}
