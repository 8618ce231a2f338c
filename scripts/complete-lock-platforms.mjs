// Completes package-lock.json with the macOS and Windows builds of optional platform packages (workerd)
// when the registry used to make it lacked them: without these entries `npm ci` refuses the lock as out of
// sync with package.json. They are never installed on Linux (their os/cpu do not match). Run after
// `npm install` changes the lock: node scripts/complete-lock-platforms.mjs package-lock.json
import { readFileSync, writeFileSync } from "node:fs";
const file = process.argv[2];
const lock = JSON.parse(readFileSync(file, "utf8"));
const pkgs = lock.packages;
const PLATFORM = {
  "darwin-64": { os: ["darwin"], cpu: ["x64"] },
  "darwin-arm64": { os: ["darwin"], cpu: ["arm64"] },
  "linux-64": { os: ["linux"], cpu: ["x64"] },
  "linux-arm64": { os: ["linux"], cpu: ["arm64"] },
  "windows-64": { os: ["win32"], cpu: ["x64"] },
};
// Node's lookup: the nearest node_modules/<name> up the tree decides, whatever its version.
function resolves(from, name, version) {
  let dir = from;
  for (;;) {
    const found = pkgs[`${dir ? dir + "/" : ""}node_modules/${name}`];
    if (found) return found.version === version;
    if (!dir) return false;
    const i = dir.lastIndexOf("/node_modules/");
    dir = i === -1 ? "" : dir.slice(0, i);
  }
}
let added = 0;
for (const [path, entry] of Object.entries(pkgs)) {
  for (const [name, version] of Object.entries(entry.optionalDependencies ?? {})) {
    if (resolves(path, name, version)) continue;
    const parentDir = path.slice(0, path.lastIndexOf("node_modules/")).replace(/\/$/, "");
    const at = `${parentDir ? parentDir + "/" : ""}node_modules/${name}`;
    const platform = Object.entries(PLATFORM).find(([suffix]) => name.endsWith(suffix))?.[1];
    if (!platform) {
      console.error(`no platform for ${name}`);
      continue;
    }
    pkgs[at] = { version, dev: entry.dev, license: entry.license, optional: true, ...platform, engines: entry.engines };
    added += 1;
    console.log(`added ${at}@${version}`);
  }
}
const sorted = Object.fromEntries(
  Object.entries(pkgs).sort(([a], [b]) => (a === "" ? -1 : b === "" ? 1 : a.localeCompare(b))),
);
lock.packages = sorted;
writeFileSync(file, JSON.stringify(lock, null, 2) + "\n");
console.log(`${added} entries added`);
