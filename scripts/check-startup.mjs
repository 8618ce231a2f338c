#!/usr/bin/env node
/**
 * npm test fails when a module only the operator or a reader of the API document needs is evaluated when
 * the Worker starts, or any of zod. Evaluating zod and building schemas was most of the Worker's start-up
 * CPU (`npm run startup`), so src/app.ts imports the operator's routes, GET /openapi.json and GET /docs on
 * first use (src/index.ts the queue consumer, with the first batch), the client's routes read their
 * requests without zod (src/orders/requests.ts) and hand over their schemas and examples as loaders
 * (RouteDoc in src/http/route.ts), and wrangler's bundler (esbuild, one bundle) turns each such `import()`
 * into a module evaluated on its first call. One static import of such a module from the client's side
 * would quietly put it back at start-up.
 *
 * The check bundles the Worker as `wrangler deploy` does (not minified, so that each lazily evaluated
 * module keeps its path), evaluates the bundle in Node with esbuild's module initialiser instrumented,
 * and lists the modules of src/ whose top level ran. None of these may be among them:
 *   - the modules src/app.ts and src/index.ts import with `import()` (read from those files);
 *   - every `*-admin-routes.ts` and `*-admin-schemas.ts` (the operator's routes and their schemas, named so
 *     by the scheme scripts/check-layout.mjs holds);
 *   - the queue consumer and the schemas of its messages (src/webhooks/: queue-handler, consumer,
 *     dead-letter-store, schemas);
 *   - the schemas of the client's requests and answers (orders/order-schemas.ts, orders/order-view-schemas.ts,
 *     catalogue/catalogue-schemas.ts, catalogue/product-schemas.ts, wallets/wallet-schemas.ts), the upstream supplier's
 *     answer (fulfilment/upstream-answer.ts) and every `*-examples.ts`;
 *   - zod itself (node_modules/zod/), which every one of those loads;
 *   - the document's builder (src/http/openapi.ts and its openapi-*.ts, src/kernel/failure-details.ts) and src/docs/.
 * `node scripts/check-startup.mjs --list` lists the modules evaluated at start-up and those on first use.
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { root } from "./source-facts.mjs";

const NOT_AT_STARTUP = [
  /-admin-routes\.ts$/,
  /-admin-schemas\.ts$/,
  /^src\/webhooks\/(webhook-message-schemas|consumer|dead-letter-store|queue-handler)\.ts$/,
  /^src\/(orders\/order-schemas|orders\/order-view-schemas|catalogue\/catalogue-schemas|catalogue\/product-schemas|wallets\/wallet-schemas)\.ts$/,
  /^src\/fulfilment\/upstream-answer\.ts$/,
  /-examples\.ts$/,
  /^src\/http\/openapi(-\w+)?\.ts$/,
  /^src\/kernel\/failure-details\.ts$/,
  /^src\/docs\//,
];

const entryModules = ["app.ts", "index.ts"].map((file) => readFileSync(join(root, "src", file), "utf8")).join("\n");
const lazilyImported = [...entryModules.matchAll(/import\("\.\/([\w/-]+)"\)/g)].map(([, path]) => `src/${path}.ts`);
if (lazilyImported.length === 0) {
  console.error(
    "check-startup: src/app.ts and src/index.ts import nothing with import(): nothing is loaded on first use",
  );
  process.exit(1);
}

const out = mkdtempSync(join(tmpdir(), "startup-check-"));
try {
  const wrangler = join(root, "node_modules", "wrangler", "bin", "wrangler.js");
  const built = spawnSync(process.execPath, [wrangler, "deploy", "--dry-run", "--no-minify", "--outdir", out], {
    cwd: root,
    env: { ...process.env, CI: "true", WRANGLER_SEND_METRICS: "false" },
    encoding: "utf8",
  });
  if (built.status !== 0) throw new Error(`wrangler deploy --dry-run failed:\n${built.stdout}${built.stderr}`);
  let bundle = readFileSync(
    join(
      out,
      readdirSync(out).find((file) => file.endsWith(".js")),
    ),
    "utf8",
  );

  // esbuild's initialiser of a lazily evaluated module: `__esm({ "src/path.ts"() { top level } })`.
  const helper = "return fn && (res = (0, fn[__getOwnPropNames(fn)[0]])(fn = 0)), res;";
  if (!bundle.includes(helper))
    throw new Error("esbuild's __esm helper is not the one this check instruments: update scripts/check-startup.mjs");
  bundle = bundle.replace(helper, `if (fn) globalThis.__evaluated.push(__getOwnPropNames(fn)[0]); ${helper}`);
  // The Durable Object base class is the runtime's; a stand-in is enough to evaluate the module.
  bundle = bundle.replace(
    /^import \{ DurableObject(?: as (\w+))? \} from "cloudflare:workers";$/gm,
    (_, alias) => `const ${alias ?? "DurableObject"} = class {};`,
  );
  // Every module of the bundle (esbuild names each in a `// path` comment), and those it wraps to evaluate on first use.
  const bundled = [...new Set([...bundle.matchAll(/^\/\/ ((?:src|node_modules)\/\S+)$/gm)].map(([, path]) => path))];
  const wrapped = new Set([...bundle.matchAll(/^ {2}"((?:src|node_modules)\/\S+)"\(\) \{$/gm)].map(([, path]) => path));

  const file = join(out, "worker.mjs");
  writeFileSync(file, `globalThis.__evaluated = [];\n${bundle}`);
  await import(pathToFileURL(file).href);
  const evaluated = new Set(globalThis.__evaluated);
  const evaluatedAtStartup = new Set(bundled.filter((path) => !wrapped.has(path) || evaluated.has(path)));
  const modules = bundled.filter((path) => /^src\/\S+\.ts$/.test(path));
  const atStartup = modules.filter((path) => evaluatedAtStartup.has(path)).sort();

  const misplaced = atStartup.filter(
    (path) => lazilyImported.includes(path) || NOT_AT_STARTUP.some((pattern) => pattern.test(path)),
  );
  const missing = lazilyImported.filter((path) => !modules.includes(path));
  const zodAtStartup = bundled.filter((path) => path.startsWith("node_modules/zod/") && evaluatedAtStartup.has(path));
  if (misplaced.length > 0) {
    console.error(
      `Evaluated when the Worker starts, though only the operator, the API document or the queue consumer needs them:\n  ${misplaced.join("\n  ")}`,
    );
    console.error("A static import of one of them from a module the Worker loads at start-up puts it back there.");
  }
  if (missing.length > 0) console.error(`Imported with import() but not in the bundle:\n  ${missing.join("\n  ")}`);
  if (zodAtStartup.length > 0) {
    console.error(
      `zod is evaluated when the Worker starts (${zodAtStartup.length} of its modules, e.g. ${zodAtStartup[0]}): a module on the client's path imports it, or imports a schema`,
    );
  }
  if (misplaced.length > 0 || missing.length > 0 || zodAtStartup.length > 0) process.exit(1);
  const later = modules.filter((path) => !atStartup.includes(path));
  if (process.argv.includes("--list"))
    console.log(`At start-up:\n  ${atStartup.join("\n  ")}\nOn first use:\n  ${later.join("\n  ")}`);
  console.log(
    `startup: ${atStartup.length} modules of src/ evaluated when the Worker starts, ${later.length} on first use (${lazilyImported.length} imported with import() by app.ts and index.ts), none of them the operator's or the document's, nor zod`,
  );
} finally {
  rmSync(out, { recursive: true, force: true });
}
