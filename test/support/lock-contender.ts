// One process contending for a data directory's lock: waits until the shared start time so
// that every contender asks at once, then prints whether it got the lock. A contender that got
// it holds it until the test, having heard from every contender, closes its stdin or kills it:
// let go any sooner, and a contender that started late could take the lock fairly and blur who
// won. Used by db/directory-lock.process.test.ts.
import { lockDataDirectory } from "../../db/directory-lock";

const [directory, startAt] = process.argv.slice(2);
while (Date.now() < Number(startAt)) {
  // spin, so that the contenders start within microseconds of each other
}
try {
  lockDataDirectory(directory!, { checkEveryMs: 50, onLost: () => console.log("lost") });
  console.log("locked");
  process.stdin.resume();
  process.stdin.on("end", () => process.exit(0));
} catch (error) {
  console.log((error as Error).name === "DataDirectoryLockedError" ? "refused" : `failed: ${(error as Error).message}`);
}
