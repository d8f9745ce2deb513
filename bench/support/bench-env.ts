/**
 * What a benchmark's server is started with besides its database: it runs on this machine for
 * one client, so room creation is open to it and the limits per client address and per seat
 * (which would answer 429 to a benchmark's hundreds of writes) stay out of the way. The limits
 * are measured by their own tests (lib/limits).
 */
export const BENCH_SERVER_ENV = {
  PARLEY_ROOM_CREATION: "anyone",
  PARLEY_ROOMS_PER_HOUR: "100000",
  PARLEY_SEATS_PER_HOUR: "100000",
  PARLEY_RUN_STARTS_PER_MINUTE: "100000",
  PARLEY_SEAT_WRITES_PER_MINUTE: "0",
  PARLEY_ROOM_DAILY_COST_USD: "0",
  PARLEY_INSTANCE_DAILY_COST_USD: "0",
} as const;
