/**
 * How far the server's clock is ahead of this device's (ms; negative when behind), from one
 * reading: the server's time as it sent something, and this device's time as it arrived. The
 * trip between them makes the reading a little short, by well under a second; a device whose
 * clock is minutes off is put right. 0 for a time that cannot be read.
 */
export function clockOffset(serverTime: string, receivedAt: number): number {
  const server = Date.parse(serverTime);
  return Number.isFinite(server) ? server - receivedAt : 0;
}
