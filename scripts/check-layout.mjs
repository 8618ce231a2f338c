#!/usr/bin/env node
/**
 * npm test fails when the Layout section of README.md no longer matches the tree: every folder and file
 * directly in src/ has its own line there (`  name/` or `  name.ts`), every folder of test/ is named in the
 * test/ entry, and every top-level entry of the block exists.
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, resolve } from "node:path";

const root = resolve(dirname(new URL(import.meta.url).pathname), "..");
const readme = readFileSync(join(root, "README.md"), "utf8");
const section = /^## Layout\n+```\n([\s\S]*?)\n```/m.exec(readme);
if (section === null) {
  console.error("README.md has no ## Layout section with a ``` block");
  process.exit(1);
}
const block = section[1].split("\n");

const problems = [];
const entries = (dir) => readdirSync(join(root, dir)).map((name) => (statSync(join(root, dir, name)).isDirectory() ? `${name}/` : name));

// Top-level entries (no indent) and the lines that belong to each.
const topLevel = new Map();
let current = null;
for (const line of block) {
  const match = /^(\S+)/.exec(line);
  if (match) {
    current = match[1];
    topLevel.set(current, []);
  } else if (current !== null) {
    topLevel.get(current).push(line);
  }
}
for (const name of topLevel.keys()) {
  try {
    statSync(join(root, name));
  } catch {
    problems.push(`Layout lists ${name}, which does not exist`);
  }
}

const srcListed = new Set((topLevel.get("src/") ?? []).map((line) => /^  (\S+)/.exec(line)?.[1]).filter(Boolean));
const srcActual = new Set(entries("src").filter((name) => name.endsWith("/") || name.endsWith(".ts")));
for (const name of srcActual) if (!srcListed.has(name)) problems.push(`src/${name} is not in the Layout section`);
for (const name of srcListed) if (!srcActual.has(name)) problems.push(`Layout lists src/${name}, which does not exist`);

const testText = [block.find((line) => line.startsWith("test/")) ?? "", ...(topLevel.get("test/") ?? [])].join(" ");
for (const name of entries("test").filter((entry) => entry.endsWith("/"))) {
  if (!new RegExp(`(^|[\\s(])${name.replace("/", "\\/")}`).test(testText.replace(/^test\//, ""))) {
    problems.push(`test/${name} is not named in the Layout section's test/ entry`);
  }
}

if (problems.length > 0) {
  console.error(`README.md Layout does not match the tree:\n  ${problems.join("\n  ")}`);
  process.exit(1);
}
console.log(`layout: README.md lists the ${srcActual.size} entries of src/ and every folder of test/`);
