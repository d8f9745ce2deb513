import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { DataDirectoryLockedError, lockDataDirectory } from "./directory-lock";

const tempDir = () => fs.mkdtempSync(path.join(os.tmpdir(), "parley-lock-"));

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
    const dead = spawn(process.execPath, ["-e", "0"], { stdio: "ignore" });
    await new Promise((resolve) => dead.on("exit", resolve));
    fs.writeFileSync(path.join(directory, "parley.lock"), JSON.stringify({ pid: dead.pid }));
    const release = lockDataDirectory(directory);
    const lock = JSON.parse(fs.readFileSync(path.join(directory, "parley.lock"), "utf8"));
    expect(lock.pid).toBe(process.pid);
    release();
    expect(fs.existsSync(path.join(directory, "parley.lock"))).toBe(false);
    lockDataDirectory(directory)();
  });
});
