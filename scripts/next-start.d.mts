import type { ChildProcess, StdioOptions } from "node:child_process";

/** The interface the server listens on: `HOST`, else this machine only (127.0.0.1). */
export function listenHost(env?: NodeJS.ProcessEnv): string;

/** Starts `next start` on the production build in a process of its own, leaving SIGINT and SIGTERM to Parley. */
export function startNext(options: {
  port: number | string;
  env?: NodeJS.ProcessEnv;
  stdio?: StdioOptions;
  nodeArgs?: string[];
}): ChildProcess;

/** Serves the production build in this process, which is then the server. */
export function serveNextHere(options: { port: number | string }): Promise<void>;
