/**
 * What the checks of npm test read from src/ (scripts/check-imports.mjs, scripts/check-layout.mjs): the
 * import graph of its files and the D1 tables each file writes. Uses the TypeScript already installed to
 * read imports and string literals, so the checks need no dependency of their own.
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve, sep } from "node:path";
import ts from "typescript";

export const root = resolve(dirname(new URL(import.meta.url).pathname), "..");
export const src = join(root, "src");

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

/** A file's path inside src/. */
export const name = (file) => relative(src, file);
/** The folder of src/ a file is in; "(root)" for the files directly in src/ (the entry and the composition root). */
export const folderOf = (file) => (name(file).includes("/") ? name(file).split("/")[0] : "(root)");

/** Every .ts file of src/ and the files of src/ it imports (`import type` too). */
export function importGraph() {
  const graph = new Map();
  for (const file of filesUnder(src)) {
    const { importedFiles } = ts.preProcessFile(readFileSync(file, "utf8"), true, true);
    graph.set(file, [...new Set(importedFiles.map(({ fileName }) => resolveImport(file, fileName)).filter(Boolean))]);
  }
  return graph;
}

/** The D1 tables: those the migrations create. */
export function d1Tables() {
  const dir = join(root, "schema", "migrations");
  const tables = new Set();
  for (const file of readdirSync(dir).filter((entry) => entry.endsWith(".sql"))) {
    for (const [, table] of readFileSync(join(dir, file), "utf8").matchAll(
      /CREATE TABLE (?:IF NOT EXISTS )?([a-z_]+)/gi,
    ))
      tables.add(table);
  }
  return tables;
}

const WRITE = /\b(?:INSERT(?:\s+OR\s+\w+)?\s+INTO|UPDATE|DELETE\s+FROM)\s+([a-z_]+)/gi;

/** For each D1 table, the files of src/ whose SQL (string and template literals, not comments) writes it. */
export function tableWriters() {
  const tables = d1Tables();
  const writers = new Map([...tables].map((table) => [table, new Set()]));
  for (const [file, text] of sqlTexts())
    for (const [, table] of text.matchAll(WRITE)) if (tables.has(table)) writers.get(table).add(file);
  return writers;
}

/** Each file of src/ with the text of its string literals and template parts: where its SQL is. */
function sqlTexts() {
  const texts = new Map();
  for (const file of filesUnder(src)) {
    if (file.includes(GENERATED)) continue;
    const source = ts.createSourceFile(file, readFileSync(file, "utf8"), ts.ScriptTarget.Latest, false);
    const parts = [];
    const visit = (node) => {
      if (
        ts.isStringLiteralLike(node) ||
        ts.isTemplateHead(node) ||
        ts.isTemplateMiddle(node) ||
        ts.isTemplateTail(node)
      )
        parts.push(node.text);
      ts.forEachChild(node, visit);
    };
    visit(source);
    texts.set(file, parts.join("\n"));
  }
  return texts;
}

/**
 * The Durable Objects' SQLite tables: those a module of src/ creates (not D1's, which the migrations
 * create), each with the modules that create it and the modules that write it.
 */
export function objectTables() {
  const texts = sqlTexts();
  const tables = new Map();
  for (const [file, text] of texts)
    for (const [, table] of text.matchAll(/CREATE TABLE (?:IF NOT EXISTS )?([a-z_]+)/gi)) {
      if (!tables.has(table)) tables.set(table, { creators: new Set(), writers: new Set() });
      tables.get(table).creators.add(file);
    }
  for (const [file, text] of texts) for (const [, table] of text.matchAll(WRITE)) tables.get(table)?.writers.add(file);
  return tables;
}
