import fs from "node:fs";
import os from "node:os";
import path from "node:path";

export class DataDirectoryLockedError extends Error {
  constructor(
    readonly directory: string,
    readonly holderPid: number,
  ) {
    super(
      `The embedded database in ${directory} is already in use by another Parley process (pid ${holderPid}). ` +
        "PGlite serves one process only and would otherwise lose writes silently. " +
        "Stop that process first, or set DATABASE_URL to run several processes against PostgreSQL.",
    );
    this.name = "DataDirectoryLockedError";
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

/**
 * Takes an exclusive lock on a data directory for this process, refusing when another
 * live process holds it and taking over a lock left behind by a dead one.
 * Returns a function that releases it (also released when the process exits).
 */
export function lockDataDirectory(directory: string): () => void {
  fs.mkdirSync(directory, { recursive: true });
  const lockPath = path.join(directory, "parley.lock");
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      const fd = fs.openSync(lockPath, "wx");
      fs.writeSync(fd, JSON.stringify({ pid: process.pid, host: os.hostname(), since: new Date().toISOString() }));
      fs.closeSync(fd);
      const release = () => {
        try {
          const holder = JSON.parse(fs.readFileSync(lockPath, "utf8")) as { pid: number };
          if (holder.pid === process.pid) fs.unlinkSync(lockPath);
        } catch {
          // already gone
        }
      };
      process.once("exit", release);
      return release;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
      let holderPid = 0;
      try {
        holderPid = (JSON.parse(fs.readFileSync(lockPath, "utf8")) as { pid: number }).pid;
      } catch {
        // a half-written or unreadable lock is treated as stale
      }
      if (holderPid && holderPid !== process.pid && isAlive(holderPid)) {
        throw new DataDirectoryLockedError(directory, holderPid);
      }
      fs.rmSync(lockPath, { force: true });
    }
  }
  throw new Error(`Could not lock ${directory}`);
}
