import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { DataDirectoryLockedError, lockDataDirectory } from "./directory-lock";

const tempDir = () => fs.mkdtempSync(path.join(os.tmpdir(), "parley-lock-"));

const deadPid = async () => {
  const dead = spawn(process.execPath, ["-e", "0"], { stdio: "ignore" });
  await new Promise((resolve) => dead.on("exit", resolve));
  return dead.pid!;
};

/**
 * Starts `count` processes that all ask for the directory's lock at the same moment; what each
 * said. The one that gets the lock keeps it until every contender has answered: only then are
 * they stopped, so no contender can find the lock let go and take it after the race.
 */
async function contend(directory: string, count: number): Promise<string[]> {
  const contender = path.join(import.meta.dirname, "..", "test", "support", "lock-contender.ts");
  const startAt = Date.now() + 1500;
  const children = Array.from({ length: count }, () =>
    spawn(process.execPath, ["--import", "tsx", contender, directory, String(startAt)], { stdio: ["pipe", "pipe", "inherit"] }),
  );
  try {
    return await Promise.all(
      children.map(
        (child) =>
          new Promise<string>((resolve) => {
            let output = "";
            child.stdout.on("data", (chunk) => {
              output += chunk;
              if (output.includes("\n")) resolve(output.trim());
            });
            child.on("exit", () => resolve(output.trim()));
          }),
      ),
    );
  } finally {
    for (const child of children) child.kill("SIGKILL");
  }
}

/** A process that has ended but that its parent has not reaped: a zombie, as `ps` shows it. */
async function zombiePid(): Promise<{ pid: number; stop: () => void }> {
  // The shell starts a short sleep in the background and becomes a long one, which never reaps it.
  // The short one must outlive the shell: a shell that sees its child end before it execs reaps it.
  const parent = spawn("sh", ["-c", "sleep 0.3 & echo $!; exec sleep 60"], { stdio: ["ignore", "pipe", "inherit"] });
  const pid = await new Promise<number>((resolve) => parent.stdout.once("data", (chunk) => resolve(Number(String(chunk).trim()))));
  const state = () => {
    try {
      return fs.readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]?.[0];
    } catch {
      return undefined;
    }
  };
  for (let tries = 0; state() !== "Z" && tries < 200; tries++) await new Promise((resolve) => setTimeout(resolve, 25));
  expect(state()).toBe("Z");
  return { pid, stop: () => parent.kill("SIGKILL") };
}

describe("lockDataDirectory", () => {
  it("refuses a directory held by another live process, naming it", async () => {
    const directory = tempDir();
    const holder = spawn(process.execPath, ["-e", "setTimeout(() => {}, 60000)"], { stdio: "ignore" });
    try {
      fs.writeFileSync(path.join(directory, "parley.lock"), JSON.stringify({ pid: holder.pid }));
      expect(() => lockDataDirectory(directory)).toThrow(DataDirectoryLockedError);
      expect(() => lockDataDirectory(directory)).toThrow(new RegExp(`in use by another Parley process \\(pid ${holder.pid}\\)`));
    } finally {
      holder.kill();
    }
  });

  it("takes over a lock left by a process that died, and releases it", async () => {
    const directory = tempDir();
    fs.writeFileSync(path.join(directory, "parley.lock"), JSON.stringify({ pid: await deadPid() }));
    const release = lockDataDirectory(directory);
    const lock = JSON.parse(fs.readFileSync(path.join(directory, "parley.lock"), "utf8"));
    expect(lock.pid).toBe(process.pid);
    release();
    expect(fs.existsSync(path.join(directory, "parley.lock"))).toBe(false);
    lockDataDirectory(directory)();
  });

  it.runIf(process.platform === "linux")("takes over a lock whose holder was killed but not yet reaped (a zombie)", async () => {
    const directory = tempDir();
    const zombie = await zombiePid();
    try {
      fs.writeFileSync(path.join(directory, "parley.lock"), JSON.stringify({ pid: zombie.pid }));
      const release = lockDataDirectory(directory);
      expect(JSON.parse(fs.readFileSync(path.join(directory, "parley.lock"), "utf8")).pid).toBe(process.pid);
      release();
    } finally {
      zombie.stop();
    }
  });

  it.runIf(process.platform === "linux")("takes over a lock whose holder's pid now belongs to another process", async () => {
    const directory = tempDir();
    const other = spawn(process.execPath, ["-e", "setTimeout(() => {}, 60000)"], { stdio: "ignore" });
    try {
      // The pid is alive, but it started at another time than the process that took the lock.
      fs.writeFileSync(path.join(directory, "parley.lock"), JSON.stringify({ pid: other.pid, started: "1" }));
      const release = lockDataDirectory(directory);
      expect(JSON.parse(fs.readFileSync(path.join(directory, "parley.lock"), "utf8")).pid).toBe(process.pid);
      release();
      // Started when it says: still its holder.
      const started = fs.readFileSync(`/proc/${other.pid}/stat`, "utf8").split(") ")[1]!.split(" ")[19];
      fs.writeFileSync(path.join(directory, "parley.lock"), JSON.stringify({ pid: other.pid, started }));
      expect(() => lockDataDirectory(directory)).toThrow(DataDirectoryLockedError);
    } finally {
      other.kill();
    }
  });

  it("lets exactly one of several processes starting at once have a fresh directory", async () => {
    for (let trial = 0; trial < 2; trial++) {
      const said = await contend(tempDir(), 4);
      expect(
        said.filter((line) => line === "locked"),
        said.join(", "),
      ).toHaveLength(1);
      expect(
        said.filter((line) => line === "refused"),
        said.join(", "),
      ).toHaveLength(3);
    }
  }, 30_000);

  it("lets exactly one of several processes take over a dead process's lock at once", async () => {
    for (let trial = 0; trial < 2; trial++) {
      const directory = tempDir();
      fs.writeFileSync(path.join(directory, "parley.lock"), JSON.stringify({ pid: await deadPid() }));
      const said = await contend(directory, 4);
      expect(
        said.filter((line) => line === "locked"),
        said.join(", "),
      ).toHaveLength(1);
      expect(
        said.filter((line) => line === "refused"),
        said.join(", "),
      ).toHaveLength(3);
    }
  }, 30_000);

  it("tells its holder when the lock is taken from it", async () => {
    const directory = tempDir();
    let lostTo: unknown = "not yet";
    const release = lockDataDirectory(directory, { checkEveryMs: 20, onLost: (holder) => (lostTo = holder) });
    fs.writeFileSync(path.join(directory, "parley.lock"), JSON.stringify({ pid: 4242, token: "someone-else" }));
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(lostTo).toMatchObject({ pid: 4242 });
    release();
    // It was not ours to remove.
    expect(fs.existsSync(path.join(directory, "parley.lock"))).toBe(true);
  });
});
