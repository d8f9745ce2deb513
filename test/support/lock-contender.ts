// One process contending for a data directory's lock: waits until the shared start time so
// that every contender asks at once, then prints whether it got the lock and keeps it for a
// while. Used by db/directory-lock.test.ts.
import { lockDataDirectory } from "../../db/directory-lock";

const [directory, startAt, holdMs] = process.argv.slice(2);
while (Date.now() < Number(startAt)) {
  // spin, so that the contenders start within microseconds of each other
}
try {
  lockDataDirectory(directory!, { checkEveryMs: 50, onLost: () => console.log("lost") });
  console.log("locked");
  setTimeout(() => process.exit(0), Number(holdMs));
} catch (error) {
  console.log((error as Error).name === "DataDirectoryLockedError" ? "refused" : `failed: ${(error as Error).message}`);
}
