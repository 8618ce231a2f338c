/**
 * A revision of this repository as files in a directory, ready to bundle: what `npm run bench:compare` and
 * `npm run startup` measure revisions on. Exported with `git archive` (no worktree to remove afterwards:
 * deleting the directory is the whole clean-up), node_modules shared with `root` through a symlink, and
 * the docs renderer that `npm ci` builds into the gitignored src/docs/generated/ copied in, since a
 * revision that serves GET /docs imports it.
 */
import { execFileSync } from "node:child_process";
import { cpSync, existsSync, mkdirSync, symlinkSync } from "node:fs";
import { join } from "node:path";

export function exportRevision(root, revision, dir) {
  mkdirSync(dir, { recursive: true });
  execFileSync("sh", ["-c", `git archive "$1" | tar -x -C "$2"`, "sh", revision, dir], { cwd: root });
  symlinkSync(join(root, "node_modules"), join(dir, "node_modules"));
  const generated = join(root, "src", "docs", "generated");
  if (existsSync(join(dir, "src", "docs")) && existsSync(generated))
    cpSync(generated, join(dir, "src", "docs", "generated"), { recursive: true });
  return dir;
}
