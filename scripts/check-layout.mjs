#!/usr/bin/env node
/**
 * npm test fails when the Layout section of ARCHITECTURE.md no longer matches the tree: every folder and file
 * directly in src/ has its own line there (`  name/` or `  name.ts`), every folder of test/ is named in the
 * test/ entry, and every top-level entry of the block exists. Its claims are checked too: a folder of src/
 * imports only the folders listed above it (the files directly in src/ import any), and the D1 tables a
 * folder's entry names in [brackets] are exactly the tables written from it.
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { folderOf, importGraph, name, root, tableWriters } from "./source-facts.mjs";

const architecture = readFileSync(join(root, "ARCHITECTURE.md"), "utf8");
const section = /^## Layout\n+```\n([\s\S]*?)\n```/m.exec(architecture);
if (section === null) {
  console.error("ARCHITECTURE.md has no ## Layout section with a ``` block");
  process.exit(1);
}
const block = section[1].split("\n");

const problems = [];
const entries = (dir) =>
  readdirSync(join(root, dir)).map((name) => (statSync(join(root, dir, name)).isDirectory() ? `${name}/` : name));

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

/** The entries of src/ in the order listed, each with its text (its own line and the lines continuing it). */
const srcEntries = [];
for (const line of topLevel.get("src/") ?? []) {
  const entry = /^  (\S+)/.exec(line)?.[1];
  if (entry !== undefined) srcEntries.push({ entry, text: line });
  else if (srcEntries.length > 0) srcEntries[srcEntries.length - 1].text += ` ${line.trim()}`;
}
const srcListed = new Set(srcEntries.map(({ entry }) => entry));
const srcActual = new Set(entries("src").filter((name) => name.endsWith("/") || name.endsWith(".ts")));
for (const name of srcActual) if (!srcListed.has(name)) problems.push(`src/${name} is not in the Layout section`);
for (const name of srcListed) if (!srcActual.has(name)) problems.push(`Layout lists src/${name}, which does not exist`);

const testText = [block.find((line) => line.startsWith("test/")) ?? "", ...(topLevel.get("test/") ?? [])].join(" ");
for (const name of entries("test").filter((entry) => entry.endsWith("/"))) {
  if (!new RegExp(`(^|[\\s(])${name.replace("/", "\\/")}`).test(testText.replace(/^test\//, ""))) {
    problems.push(`test/${name} is not named in the Layout section's test/ entry`);
  }
}

// Each folder imports only the folders listed above it.
const rank = new Map(
  srcEntries.filter(({ entry }) => entry.endsWith("/")).map(({ entry }, index) => [entry.slice(0, -1), index]),
);
const seen = new Set();
for (const [file, imports] of importGraph()) {
  for (const imported of imports) {
    const [from, to] = [folderOf(file), folderOf(imported)];
    if (from === to || from === "(root)" || !rank.has(from) || !rank.has(to) || rank.get(to) < rank.get(from)) continue;
    if (seen.has(`${from}>${to}`)) continue;
    seen.add(`${from}>${to}`);
    problems.push(
      `src/${from}/ imports src/${to}/, listed below it (${name(file)} imports ${name(imported)}): move the import or the line`,
    );
  }
}

// The tables in brackets are the tables the folder writes.
const written = new Map();
for (const [table, files] of tableWriters())
  for (const file of files) written.set(folderOf(file), [...(written.get(folderOf(file)) ?? []), table]);
for (const { entry, text } of srcEntries.filter(({ entry }) => entry.endsWith("/"))) {
  const folder = entry.slice(0, -1);
  const listed = (/\[([a-z_, ]+)\]\s*$/.exec(text)?.[1] ?? "")
    .split(",")
    .map((table) => table.trim())
    .filter(Boolean)
    .sort();
  const actual = [...new Set(written.get(folder) ?? [])].sort();
  if (listed.join() !== actual.join())
    problems.push(`src/${entry} lists the tables [${listed.join(", ")}] but writes [${actual.join(", ")}]`);
}

// The names (ARCHITECTURE.md, "Names"): a routes file says who calls it, a schema file what it describes.
const srcFiles = (dir) =>
  readdirSync(join(root, dir)).flatMap((entry) =>
    statSync(join(root, dir, entry)).isDirectory() ? srcFiles(join(dir, entry)) : [join(dir, entry)],
  );
for (const file of srcFiles("src").filter((path) => path.endsWith(".ts") && !path.includes("/generated/"))) {
  const base = file.split("/").pop();
  if (/schema/.test(base) && !/^[a-z0-9]+(-[a-z0-9]+)*-schemas\.ts$/.test(base)) {
    problems.push(`${file}: a schema file is named <subject>-schemas.ts (ARCHITECTURE.md, Names)`);
  }
  if (/-storage\.ts$/.test(base))
    problems.push(`${file}: a storage module is named <subject>-store.ts (ARCHITECTURE.md, Names)`);
  if (!base.endsWith("-routes.ts")) continue;
  const paths = [...readFileSync(join(root, file), "utf8").matchAll(/^\s*path: "([^"]+)"/gm)].map(([, path]) => path);
  const operatorOnly = paths.length > 0 && paths.every((path) => path.startsWith("/admin/") || path === "/admin");
  if (operatorOnly && !base.endsWith("-admin-routes.ts")) {
    problems.push(
      `${file}: every route is under /admin, so its name ends in -admin-routes.ts (ARCHITECTURE.md, Names)`,
    );
  }
  if (base.endsWith("-admin-routes.ts") && !operatorOnly) {
    problems.push(
      `${file}: named as the operator's, but serves ${paths.filter((path) => !path.startsWith("/admin")).join(", ") || "no route"}`,
    );
  }
}

if (problems.length > 0) {
  console.error(`ARCHITECTURE.md Layout does not match the tree:\n  ${problems.join("\n  ")}`);
  process.exit(1);
}
console.log(
  `layout: ARCHITECTURE.md lists the ${srcActual.size} entries of src/ and every folder of test/; each folder of src/ imports only those above it and writes the tables it names; routes, schema and store files follow the naming scheme`,
);
