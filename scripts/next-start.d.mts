import type { ChildProcess, StdioOptions } from "node:child_process";

/** Starts `next start` on the production build, leaving SIGINT and SIGTERM to Parley. */
export function startNext(options: {
  port: number | string;
  env?: NodeJS.ProcessEnv;
  stdio?: StdioOptions;
  nodeArgs?: string[];
}): ChildProcess;
