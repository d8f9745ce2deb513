import { execFileSync } from "node:child_process";
import fs from "node:fs";

/** Kernel clock ticks per second, the unit of /proc CPU times. */
const CLOCK_TICKS = Number(execFileSync("getconf", ["CLK_TCK"], { encoding: "utf8" }).trim()) || 100;

/** The process and all its descendants (the server may run in a child of the launcher). */
function processTree(pid: number): number[] {
  const children: number[] = [];
  try {
    for (const task of fs.readdirSync(`/proc/${pid}/task`)) {
      const list = fs.readFileSync(`/proc/${pid}/task/${task}/children`, "utf8").trim();
      if (list) children.push(...list.split(/\s+/).map(Number));
    }
  } catch {
    return [pid];
  }
  return [pid, ...children.flatMap(processTree)];
}

/** Resident memory in bytes of a process and its descendants (Linux /proc). */
export function residentBytes(pid: number): number {
  let total = 0;
  for (const member of processTree(pid)) {
    try {
      const status = fs.readFileSync(`/proc/${member}/status`, "utf8");
      const match = status.match(/^VmRSS:\s+(\d+) kB/m);
      if (match) total += Number(match[1]) * 1024;
    } catch {
      // exited meanwhile
    }
  }
  return total;
}

/** CPU time in milliseconds (user + system) used so far by a process and its descendants (Linux /proc). */
export function cpuMilliseconds(pid: number): number {
  let ticks = 0;
  for (const member of processTree(pid)) {
    try {
      const stat = fs.readFileSync(`/proc/${member}/stat`, "utf8");
      // Fields after "(comm)": state is the first; utime and stime are the 12th and 13th.
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      ticks += Number(fields[11]) + Number(fields[12]);
    } catch {
      // exited meanwhile
    }
  }
  return (ticks * 1000) / CLOCK_TICKS;
}

/** Parent process id, from /proc. */
export function parentOf(pid: number): number {
  const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8");
  return Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
}
