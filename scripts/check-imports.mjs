#!/usr/bin/env node
/**
 * npm test fails when the imports of src/ run in a circle (between files, or between folders), when
 * src/http or src/kernel imports a domain, when a routes file is imported by anything but the composition
 * root, when a module other than the http layer, a routes file or the composition root imports the http
 * layer's errors (src/http/errors.ts: each failure's status; a store or an action refuses with the kernel's
 * `fail()` and knows no status), or when a D1 table is written from more than one folder.
 *
 * Every import counts, `import type` too: a type-only circle costs nothing at run time but still means two
 * modules can only be read together. So does `import()`: a module loaded on first use (src/app.ts loads
 * the operator's routes so) is imported all the same. A circle between two folders is a circle of
 * ownership even when no two files form one.
 */
import { folderOf, importGraph, name, tableWriters } from "./source-facts.mjs";

/** Folders that may import only from themselves and from these (the http layer knows no domain). */
const ALLOWED = { http: ["http", "kernel"], kernel: ["kernel"] };

const graph = importGraph();

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

/** The http layer's errors, and who may import them besides the http layer itself. */
const HTTP_ERRORS = "http/errors.ts";
const mayImportHttpErrors = (file) => folderOf(file) === "http" || name(file) === "app.ts" || /-routes\.ts$/.test(file);

const folderEdges = new Map();
for (const [file, imports] of graph) {
  for (const imported of imports) {
    const [from, to] = [folderOf(file), folderOf(imported)];
    if (name(imported) === HTTP_ERRORS && !mayImportHttpErrors(file)) {
      problems.push(
        `${name(file)} imports ${HTTP_ERRORS}: only http/, routes files and app.ts may; refuse with fail() from kernel/failures.ts`,
      );
    }
    if (/-routes\.ts$/.test(imported) && name(file) !== "app.ts") {
      problems.push(
        `${name(file)} imports the routes file ${name(imported)}: only the composition root (src/app.ts) gathers routes`,
      );
    }
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
      if (from !== to && component.includes(from) && component.includes(to))
        witnesses.push(`${name(file)} -> ${name(imported)}`);
    }
  }
  problems.push(`import circle between folders ${component.join(", ")}:\n    ${witnesses.join("\n    ")}`);
}

const writers = tableWriters();
for (const [table, files] of writers) {
  const folders = new Set([...files].map(folderOf));
  if (folders.size > 1)
    problems.push(`the D1 table ${table} is written from ${folders.size} folders: ${[...files].map(name).join(", ")}`);
}

if (problems.length > 0) {
  console.error(problems.join("\n"));
  process.exit(1);
}
console.log(
  `imports: ${graph.size} files in src/, no circle between files or folders; src/http and src/kernel import no domain; ` +
    `routes files are gathered by app.ts only; only http/, routes files and app.ts import http/errors.ts; each of the ${writers.size} D1 tables is written from one folder`,
);
