#!/usr/bin/env node
/**
 * npm test fails when the Layout section of ARCHITECTURE.md no longer matches the tree: every folder and file
 * directly in src/ has its own line there (`  name/` or `  name.ts`), every folder of test/ is named in the
 * test/ entry, and every top-level entry of the block exists. Its claims are checked too: a folder of src/
 * imports only the folders listed above it (the files directly in src/ import any), and the D1 tables a
 * folder's entry names in [brackets] are exactly the tables written from it.
 *
 * And the names (ARCHITECTURE.md, Names), each read off what a file does rather than what it is called:
 *   - a routes file whose every route is under /admin ends in -admin-routes.ts, and only such a file;
 *   - a file with "schema" in its name is <subject>-schemas.ts;
 *   - a module whose SQL writes a D1 table is <subject>-store.ts;
 *   - an operator action (a module, not a store, that an /admin routes file and the console both import
 *     and that imports the audit log's store: every operator change is audited) is <subject>-actions.ts,
 *     and every -actions.ts file is one;
 *   - a -flow.ts file is imported by the Durable Object beside it (a class that extends DurableObject in
 *     the same folder).
 *
 * And a budget: no function of src/ runs longer than 70 lines, but for those LONG_FUNCTIONS lists (the
 * ones longer when the budget came), each held to the length it had then, to burn down; and none takes
 * more than 5 parameters (TIGER_STYLE: more take one options object, so that two of them cannot be
 * swapped), but for those LONG_PARAMETER_LISTS lists, each held to its count.
 *
 * And the console has one toolkit: no name is exported by two modules of src/console/ (a page's get and
 * post aside).
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import ts from "typescript";
import { folderOf, importGraph, name, objectTables, root, tableWriters } from "./source-facts.mjs";

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
const graph = importGraph();
for (const [file, imports] of graph) {
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

// Stores, actions and flows, by what they do.
const importers = new Map();
for (const [file, imports] of graph)
  for (const imported of imports) importers.set(imported, [...(importers.get(imported) ?? []), file]);
const tableWriting = new Map();
for (const [table, files] of tableWriters())
  for (const file of files) tableWriting.set(file, [...(tableWriting.get(file) ?? []), table]);
const auditWriters = [...tableWriting].filter(([, tables]) => tables.includes("audit_log")).map(([file]) => file);
const stores = [...tableWriting.keys()];
for (const [file, tables] of tableWriting) {
  if (!file.endsWith("-store.ts"))
    problems.push(
      `src/${name(file)} writes the D1 tables [${tables.join(", ")}], so its name ends in -store.ts (ARCHITECTURE.md, Names)`,
    );
}
// A Durable Object's table is written by stores only, of the folder whose store creates it (the ledger by the
// wallet's store alone, a restore included), so that no flow writes beside what a store keeps of it.
let objectTableCount = 0;
for (const [table, { creators, writers }] of objectTables()) {
  objectTableCount += 1;
  const folders = new Set([...creators].map(folderOf));
  for (const writer of writers)
    if (!creators.has(writer) && !(writer.endsWith("-store.ts") && folders.has(folderOf(writer))))
      problems.push(
        `src/${name(writer)} writes the Durable Object table ${table}, which only the stores of ${[...folders].map((folder) => `src/${folder}/`).join(" or ")} may write (ARCHITECTURE.md, Names)`,
      );
  for (const creator of creators)
    if (!creator.endsWith("-store.ts"))
      problems.push(`src/${name(creator)} creates the Durable Object table ${table}, so its name ends in -store.ts`);
}
let actions = 0;
for (const [file, imports] of graph) {
  const by = importers.get(file) ?? [];
  const fromAdmin = by.some((importer) => importer.endsWith("-admin-routes.ts"));
  const fromConsole = by.some((importer) => folderOf(importer) === "console");
  const audited = imports.some((imported) => auditWriters.includes(imported));
  const isAction =
    fromAdmin &&
    fromConsole &&
    audited &&
    !stores.includes(file) &&
    !file.endsWith("-routes.ts") &&
    folderOf(file) !== "console";
  if (isAction) actions += 1;
  if (isAction && !file.endsWith("-actions.ts")) {
    problems.push(
      `src/${name(file)} is an operator action (an /admin routes file and the console import it, and it audits), so its name ends in -actions.ts (ARCHITECTURE.md, Names)`,
    );
  }
  if (!isAction && file.endsWith("-actions.ts")) {
    const lacks = [
      fromAdmin ? "" : "no /admin routes file imports it",
      fromConsole ? "" : "no console module imports it",
      audited ? "" : "it does not import the audit log's store",
    ].filter(Boolean);
    problems.push(
      `src/${name(file)}: named as an operator action, but ${lacks.join(", ") || "it writes a D1 table"} (ARCHITECTURE.md, Names)`,
    );
  }
  if (file.endsWith("-flow.ts")) {
    const objects = by.filter(
      (importer) =>
        folderOf(importer) === folderOf(file) && /\bextends DurableObject\b/.test(readFileSync(importer, "utf8")),
    );
    if (objects.length === 0)
      problems.push(
        `src/${name(file)}: a -flow.ts file is a Durable Object's flow, imported by the object beside it; none does (ARCHITECTURE.md, Names)`,
      );
  }
}

// One console toolkit: a helper's name is exported by one console module only, so a page cannot pick
// between two `field`s or two `when`s. A page's `get` and `post` are the page contract (console/page.ts).
const consoleExports = new Map();
for (const file of srcFiles("src/console").filter((path) => path.endsWith(".ts"))) {
  const source = ts.createSourceFile(file, readFileSync(join(root, file), "utf8"), ts.ScriptTarget.Latest, true);
  const exported = (node) => ts.getModifiers(node)?.some((modifier) => modifier.kind === ts.SyntaxKind.ExportKeyword);
  const names = [];
  for (const statement of source.statements) {
    if ((ts.isFunctionDeclaration(statement) || ts.isClassDeclaration(statement)) && exported(statement))
      names.push(statement.name?.text ?? "default");
    if (ts.isVariableStatement(statement) && exported(statement))
      for (const declaration of statement.declarationList.declarations) names.push(declaration.name.getText(source));
    if (ts.isExportDeclaration(statement) && !statement.isTypeOnly && statement.exportClause !== undefined)
      for (const element of statement.exportClause.elements ?? [])
        if (!element.isTypeOnly) names.push(element.name.text);
  }
  for (const named of names.filter((named) => !(file.includes("/pages/") && ["get", "post"].includes(named))))
    consoleExports.set(named, [...(consoleExports.get(named) ?? []), file]);
}
for (const [named, files] of consoleExports)
  if (files.length > 1)
    problems.push(`${named} is exported by ${files.join(" and ")}: a console helper is defined once (one toolkit)`);

// The function-length budget.
const BUDGET = 70;
/** Longer than the budget when it came, by file name and function (`Class.method`, `outer.inner`). */
const LONG_FUNCTIONS = {
  "product.ts draw": 72,
  "consumer.ts deliverWebhooks": 72,
  "order.ts draw": 71,
};
/** At most this many lines a module: one that grows past it holds more than one part (issue 41). */
const MODULE_BUDGET = 500;
/** At most this many parameters; more take one object (TIGER_STYLE). */
const MAX_PARAMETERS = 5;
/** Longer than that when it came, by file name and function, each held to its count; their callers are being changed elsewhere. */
const LONG_PARAMETER_LISTS = {
  "wallet-statement.ts statementStream": 7,
};
let functions = 0;
let longest = 0;
for (const file of graph.keys()) {
  const text = readFileSync(file, "utf8");
  const moduleLines = text.split("\n").length - (text.endsWith("\n") ? 1 : 0);
  longest = Math.max(longest, moduleLines);
  if (moduleLines > MODULE_BUDGET)
    problems.push(
      `src/${name(file)} runs ${moduleLines} lines, over the module budget of ${MODULE_BUDGET}: cut it at its seams (scripts/check-layout.mjs, MODULE_BUDGET)`,
    );
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const lineOf = (position) => source.getLineAndCharacterOfPosition(position).line;
  const visit = (node, owner) => {
    let named = owner;
    if (ts.isFunctionLike(node) && "body" in node && node.body !== undefined) {
      functions += 1;
      const parent = node.parent;
      const own =
        node.name?.getText(source) ??
        (ts.isVariableDeclaration(parent) || ts.isPropertyAssignment(parent) ? parent.name.getText(source) : undefined);
      named = own === undefined ? `${owner ?? ""}<anonymous>` : owner === undefined ? own : `${owner}.${own}`;
      const lines = lineOf(node.getEnd()) - lineOf(node.getStart(source)) + 1;
      const key = `${file.split("/").pop()} ${named}`;
      const allowed = LONG_FUNCTIONS[key] ?? BUDGET;
      if (lines > allowed)
        problems.push(
          `src/${name(file)}: ${named} runs ${lines} lines, over ${allowed === BUDGET ? `the budget of ${BUDGET}` : `the ${allowed} it was held to`}: split it (scripts/check-layout.mjs, LONG_FUNCTIONS)`,
        );
      const parameters = node.parameters.length;
      const most = LONG_PARAMETER_LISTS[key] ?? MAX_PARAMETERS;
      if (parameters > most)
        problems.push(
          `src/${name(file)}: ${named} takes ${parameters} parameters, over ${most}: take one options object (scripts/check-layout.mjs, LONG_PARAMETER_LISTS)`,
        );
    } else if (ts.isClassDeclaration(node) && node.name !== undefined) {
      named = node.name.getText(source);
    }
    ts.forEachChild(node, (child) => visit(child, named));
  };
  visit(source, undefined);
}

if (problems.length > 0) {
  console.error(
    `check-layout: the tree does not keep ARCHITECTURE.md's Layout, names or function budget:\n  ${problems.join("\n  ")}`,
  );
  process.exit(1);
}
console.log(
  `layout: ARCHITECTURE.md lists the ${srcActual.size} entries of src/ and every folder of test/; each folder of src/ imports only those above it and writes the tables it names; ` +
    `names: /admin-only routes files end in -admin-routes.ts and only they, schema files in -schemas.ts, the ${tableWriting.size} modules that write D1 tables in -store.ts, the ${objectTableCount} Durable Object tables each written only by stores of the folder that creates it, ` +
    `the ${actions} operator actions (imported by /admin routes and the console, audited) in -actions.ts, and each -flow.ts is imported by the Durable Object beside it; ` +
    `of the ${functions} functions, none runs over ${BUDGET} lines but the ${Object.keys(LONG_FUNCTIONS).length} listed, none longer than listed, ` +
    `and none takes over ${MAX_PARAMETERS} parameters but the ${Object.keys(LONG_PARAMETER_LISTS).length} listed; ` +
    `no module runs over ${MODULE_BUDGET} lines (the longest ${longest})`,
);
