import fs from "node:fs";

/** The process and all its descendants (the server may run in a child of the launcher). */
export function processTree(pid: number): number[] {
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
