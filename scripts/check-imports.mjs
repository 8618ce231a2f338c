#!/usr/bin/env node
/**
 * npm test fails when the imports of src/ run in a circle, or when src/http imports a domain.
 *
 * Every import counts, `import type` too: a type-only circle costs nothing at run time but still means two
 * modules can only be read together. Files and folders are checked: a circle between two folders is a
 * circle of ownership even when no two files form one. Uses the TypeScript already installed to read the
 * imports, so the check needs no dependency of its own.
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve, sep } from "node:path";
import ts from "typescript";

const root = resolve(dirname(new URL(import.meta.url).pathname), "..");
const src = join(root, "src");

/** Folders that may import only from themselves and from these (the http layer knows no domain). */
const ALLOWED = { http: ["http", "kernel"], kernel: ["kernel"] };

/**
 * Code that a build step writes (src/docs/generated/, made by `npm ci`): a leaf that imports nothing of
 * src/, and may be absent in a fresh checkout, so an import of it is not followed.
 */
const GENERATED = `${sep}generated${sep}`;

function filesUnder(dir) {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? filesUnder(path) : path.endsWith(".ts") ? [path] : [];
  });
}

function resolveImport(from, specifier) {
  if (!specifier.startsWith(".")) return null;
  const base = resolve(dirname(from), specifier);
  if (base.includes(GENERATED)) return null;
  for (const candidate of [base, `${base}.ts`, join(base, "index.ts")]) {
    try {
      if (statSync(candidate).isFile()) return candidate;
    } catch {}
  }
  throw new Error(`${relative(root, from)}: cannot resolve ${specifier}`);
}

const name = (file) => relative(src, file);
const folderOf = (file) => (name(file).includes("/") ? name(file).split("/")[0] : "(root)");

const graph = new Map();
for (const file of filesUnder(src)) {
  const { importedFiles } = ts.preProcessFile(readFileSync(file, "utf8"), true, true);
  graph.set(file, [...new Set(importedFiles.map(({ fileName }) => resolveImport(file, fileName)).filter(Boolean))]);
}

/** The circles of a graph (one per strongly connected component of more than one node), by Tarjan. */
function circles(nodes, edgesOf) {
  let index = 0;
  const stack = [];
  const meta = new Map();
  const found = [];
  function visit(node) {
    meta.set(node, { index, low: index, onStack: true });
    index += 1;
    stack.push(node);
    for (const next of edgesOf(node)) {
      if (!meta.has(next)) {
        visit(next);
        meta.get(node).low = Math.min(meta.get(node).low, meta.get(next).low);
      } else if (meta.get(next).onStack) {
        meta.get(node).low = Math.min(meta.get(node).low, meta.get(next).index);
      }
    }
    if (meta.get(node).low === meta.get(node).index) {
      const component = [];
      let member;
      do {
        member = stack.pop();
        meta.get(member).onStack = false;
        component.push(member);
      } while (member !== node);
      if (component.length > 1 || edgesOf(node).includes(node)) found.push(component.sort());
    }
  }
  for (const node of nodes) if (!meta.has(node)) visit(node);
  return found;
}

const problems = [];
for (const component of circles([...graph.keys()], (file) => graph.get(file) ?? [])) {
  problems.push(`import circle between files: ${component.map(name).join(", ")}`);
}

const folderEdges = new Map();
for (const [file, imports] of graph) {
  for (const imported of imports) {
    const [from, to] = [folderOf(file), folderOf(imported)];
    if (from === to) continue;
    if (!folderEdges.has(from)) folderEdges.set(from, new Set());
    folderEdges.get(from).add(to);
    if (ALLOWED[from] !== undefined && !ALLOWED[from].includes(to)) {
      problems.push(`src/${from} may not import src/${to}: ${name(file)} imports ${name(imported)}`);
    }
  }
}
for (const component of circles([...folderEdges.keys()], (folder) => [...(folderEdges.get(folder) ?? [])])) {
  const witnesses = [];
  for (const [file, imports] of graph) {
    for (const imported of imports) {
      const [from, to] = [folderOf(file), folderOf(imported)];
      if (from !== to && component.includes(from) && component.includes(to)) witnesses.push(`${name(file)} -> ${name(imported)}`);
    }
  }
  problems.push(`import circle between folders ${component.join(", ")}:\n    ${witnesses.join("\n    ")}`);
}

if (problems.length > 0) {
  console.error(problems.join("\n"));
  process.exit(1);
}
console.log(`imports: ${graph.size} files in src/, no circle between files or folders; src/http and src/kernel import no domain`);
