import { spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
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

/**
 * What a lock file says: who holds it, and a token telling this taking of the lock from any other.
 * `started` is when the holder's process started, as the system counts it (where it can be read),
 * so that another process given the same pid later is not taken for the holder.
 */
interface Holder {
  pid: number;
  host?: string;
  since?: string;
  token?: string;
  started?: string;
}

/**
 * A process's state letter and start time from `/proc/<pid>/stat` (Linux), or null where there
 * is no such file. The command name, in parentheses, may hold spaces and parentheses itself, so
 * the fields are read after its last `)`.
 */
function procStat(pid: number): { state: string; started: string } | null {
  let text: string;
  try {
    text = fs.readFileSync(`/proc/${pid}/stat`, "utf8");
  } catch {
    return null;
  }
  const fields = text.slice(text.lastIndexOf(")") + 2).split(" ");
  // After the name: state (3rd field of the file), …, starttime (22nd).
  return { state: fields[0] ?? "", started: fields[19] ?? "" };
}

/** A process's state letters as `ps` shows them, where there is no `/proc` (macOS, the BSDs). */
function psState(pid: number): string | null {
  const ps = spawnSync("ps", ["-o", "stat=", "-p", String(pid)], { encoding: "utf8" });
  return ps.status === 0 ? ps.stdout.trim() : null;
}

/** This process's start time as `procStat` reads it, recorded in the lock it takes. */
const ownStart = () => procStat(process.pid)?.started;

/**
 * Whether the lock's holder still runs. A process that was killed but not yet reaped by its parent
 * (a zombie, state `Z`, or `X` while it is being reaped) holds nothing any more: it will never
 * write again, so a restart right after a `kill -9` may take over at once.
 */
function isAlive(holder: Holder): boolean {
  try {
    process.kill(holder.pid, 0);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EPERM") return false;
  }
  if (process.platform === "win32") return true;
  const stat = procStat(holder.pid);
  if (stat) return !/^[ZX]/.test(stat.state) && (holder.started === undefined || holder.started === stat.started);
  // No stat to read for a process that answers to its pid: /proc may hide other users' processes.
  if (process.platform === "linux") return true;
  const state = psState(holder.pid);
  return state === null ? true : !/^[ZX]/.test(state);
}

/** The lock's holder; null when there is no lock file (any more). An unreadable file holds nobody. */
function readHolder(file: string): Holder | null {
  let text: string;
  try {
    text = fs.readFileSync(file, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return null;
    throw error;
  }
  try {
    const holder = JSON.parse(text) as Holder;
    return typeof holder.pid === "number" ? holder : { pid: 0 };
  } catch {
    return { pid: 0 };
  }
}

const isLive = (holder: Holder) => holder.pid > 0 && holder.pid !== process.pid && isAlive(holder);

/**
 * Takes an exclusive lock on a data directory for this process, refusing when another
 * live process holds it and taking over a lock left behind by a dead one. Returns a function
 * that releases it (also released when the process exits).
 *
 * The lock file is written whole under another name and linked into place, so no one ever
 * reads a half-written lock, and two processes cannot both create it. A dead holder's lock is
 * removed by one process at a time, and only while it is still that dead lock (see
 * `takeOverStaleLock`); the others wait for it and then find the directory taken or free. While the lock is held, it is checked every `checkEveryMs`; should it
 * ever name another holder, `onLost` is called (by default the process stops), so two processes
 * never write to one database for long.
 */
export function lockDataDirectory(
  directory: string,
  { checkEveryMs = 2000, onLost = exitOnLostLock }: { checkEveryMs?: number; onLost?: (holder: Holder | null) => void } = {},
): () => void {
  fs.mkdirSync(directory, { recursive: true });
  const lockPath = path.join(directory, "parley.lock");
  const token = randomBytes(8).toString("hex");
  const mine: Holder = { pid: process.pid, host: os.hostname(), since: new Date().toISOString(), token, started: ownStart() };
  const draft = `${lockPath}.${process.pid}.${token}`;
  fs.writeFileSync(draft, JSON.stringify(mine));
  try {
    for (let attempt = 0; attempt < 200; attempt++) {
      try {
        fs.linkSync(draft, lockPath);
        return holdLock(lockPath, token, checkEveryMs, onLost);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
      }
      const holder = readHolder(lockPath);
      if (!holder) continue;
      if (isLive(holder)) throw new DataDirectoryLockedError(directory, holder.pid);
      // Another process is removing the dead lock: give it a moment before looking again.
      if (!takeOverStaleLock(lockPath, holder, draft)) pause(5);
    }
  } finally {
    fs.rmSync(draft, { force: true });
  }
  throw new Error(`Could not lock ${directory}: other processes kept taking and dropping its lock.`);
}

/**
 * Removes a dead holder's lock so that the next link takes the directory. Only one process
 * at a time may remove a lock (the takeover file is linked into place, as the lock is), and it
 * removes it only while it is still the dead lock that was read: a process that took the lock
 * meanwhile keeps it. A takeover file left by a process that died is cleared for the next try.
 */
function takeOverStaleLock(lockPath: string, stale: Holder, draft: string): boolean {
  const takeover = `${lockPath}.takeover`;
  try {
    fs.linkSync(draft, takeover);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
    const other = readHolder(takeover);
    if (other && !isLive(other)) fs.rmSync(takeover, { force: true });
    return false;
  }
  try {
    const current = readHolder(lockPath);
    if (current && current.pid === stale.pid && current.token === stale.token) fs.rmSync(lockPath, { force: true });
    return true;
  } finally {
    fs.rmSync(takeover, { force: true });
  }
}

/** Waits `ms` without returning to the event loop: taking the lock happens once, at start-up. */
function pause(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

function holdLock(lockPath: string, token: string, checkEveryMs: number, onLost: (holder: Holder | null) => void) {
  const check = setInterval(() => {
    const holder = readHolder(lockPath);
    if (holder?.token === token) return;
    clearInterval(check);
    onLost(holder);
  }, checkEveryMs);
  check.unref();
  const release = () => {
    clearInterval(check);
    if (readHolder(lockPath)?.token === token) fs.rmSync(lockPath, { force: true });
  };
  process.once("exit", release);
  return release;
}

function exitOnLostLock(holder: Holder | null): void {
  console.error(
    `[db] The embedded database's lock was taken by ${holder ? `another process (pid ${holder.pid})` : "nobody (it was removed)"}; ` +
      "stopping so that two processes never write to it at once.",
  );
  process.exit(1);
}
