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

/** Starts `count` processes that all ask for the directory's lock at the same moment; what each said. */
async function contend(directory: string, count: number): Promise<string[]> {
  const contender = path.join(import.meta.dirname, "..", "test", "support", "lock-contender.ts");
  const startAt = Date.now() + 1500;
  const outputs = Array.from({ length: count }, () => {
    const child = spawn(process.execPath, ["--import", "tsx", contender, directory, String(startAt), "600"], {
      stdio: ["ignore", "pipe", "inherit"],
    });
    let output = "";
    child.stdout.on("data", (chunk) => (output += chunk));
    return new Promise<string>((resolve) => child.on("exit", () => resolve(output.trim())));
  });
  return Promise.all(outputs);
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
