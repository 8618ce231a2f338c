// `npm start`: migrate and seed local D1, serve with `wrangler dev`, then fund the demo wallets through the
// operator API with fixed idempotency keys (a restart adds nothing). Extra arguments go to `wrangler dev`.
//
// It runs the sandbox (SERVICE_MODE "sandbox": sk_test_ keys, the /sandbox/* helpers, Sandbox-Outcome), so
// a first run has the helpers. `npm start -- --live` runs live mode instead (docs/sandbox.md): the demo key
// sk_test_demo is then refused as a sandbox key, and the demo client gets a local live key, sk_live_demo.
import { createHash, randomBytes } from "node:crypto";
import { spawn, spawnSync } from "node:child_process";
import { copyFileSync, existsSync, readFileSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { upstreamMismatch } from "./supplier-environment.mjs";

const root = fileURLToPath(new URL("..", import.meta.url));
const wrangler = ["node_modules/wrangler/bin/wrangler.js"];
const args = process.argv.slice(2);
const live = args.includes("--live");
const extra = args.filter((arg) => arg !== "--live");
const mode = live ? "live" : "sandbox";
// The demo client's key in each mode: the seed's sandbox key, or a live key made here for local use only.
const demoKey = live ? "sk_live_demo" : "sk_test_demo";
// Local only: wrangler dev would otherwise fetch a Request.cf sample from Cloudflare at start.
const localEnv = { ...process.env, CLOUDFLARE_CF_FETCH_ENABLED: "false", WRANGLER_SEND_METRICS: "false" };

function run(args) {
  const result = spawnSync(process.execPath, [...wrangler, ...args], {
    cwd: root,
    stdio: "inherit",
    env: { ...localEnv, CI: "true" },
  });
  if (result.status !== 0) process.exit(result.status ?? 1);
}

// The vars this run gives the service (wrangler.toml's, then the caller's --var NAME:value): an upstream the
// environment may not use is refused before anything starts.
const topVars = /^\[vars\]\n([\s\S]*?)^\[/m.exec(readFileSync(`${root}/wrangler.toml`, "utf8"))?.[1] ?? "";
const givenVars = Object.fromEntries([...topVars.matchAll(/^([A-Z_]+) = "(.*)"$/gm)].map((m) => [m[1], m[2]]));
givenVars.SERVICE_MODE = mode;
extra.forEach((arg, index) => {
  if (extra[index - 1] !== "--var") return;
  const at = arg.indexOf(":");
  if (at > 0) givenVars[arg.slice(0, at)] = arg.slice(at + 1);
});
const mismatch = upstreamMismatch(givenVars);
if (mismatch !== null) {
  console.error(`npm start refuses to run: ${mismatch}.`);
  process.exit(1);
}

// The /docs page's renderer is generated from node_modules (`npm ci` does it; so does this, if it is missing).
if (
  !existsSync(`${root}/src/docs/generated/renderer.js`) ||
  !existsSync(`${root}/src/docs/generated/assets/docs`) ||
  !existsSync(`${root}/src/docs/generated/assets/console`)
) {
  const made = spawnSync(process.execPath, ["scripts/docs-renderer.mjs"], { cwd: root, stdio: "inherit" });
  if (made.status !== 0) process.exit(made.status ?? 1);
}
if (!existsSync(`${root}/.dev.vars`)) copyFileSync(`${root}/.dev.vars.example`, `${root}/.dev.vars`);
// The ledger exports' signing key, a secret of its own: made here once, random, for this machine only.
if (!/^LEDGER_EXPORT_KEY=/m.test(readFileSync(`${root}/.dev.vars`, "utf8"))) {
  const vars = readFileSync(`${root}/.dev.vars`, "utf8");
  const key = `LEDGER_EXPORT_KEY=${randomBytes(32).toString("hex")}\n`;
  writeFileSync(`${root}/.dev.vars`, `${vars}${vars.endsWith("\n") || vars === "" ? "" : "\n"}${key}`, { mode: 0o600 });
}
const adminToken = /^ADMIN_TOKEN=(.*)$/m.exec(readFileSync(`${root}/.dev.vars`, "utf8"))?.[1]?.trim();

// A --persist-to given for wrangler dev applies to the local database setup too.
const persistIndex = extra.findIndex((arg) => arg === "--persist-to" || arg.startsWith("--persist-to="));
const persist =
  persistIndex === -1
    ? []
    : extra[persistIndex].includes("=")
      ? [extra[persistIndex]]
      : extra.slice(persistIndex, persistIndex + 2);
run(["d1", "migrations", "apply", "DB", "--local", ...persist]);
run(["d1", "execute", "DB", "--local", "--file", "schema/seed/demo.sql", ...persist]);
if (live) {
  const hash = createHash("sha256").update(demoKey).digest("hex");
  const insert = `INSERT OR IGNORE INTO api_keys (key_hash, client_id, label, created_at) VALUES ('${hash}', 'demo', 'local live demo', 0)`;
  run(["d1", "execute", "DB", "--local", "--command", insert, ...persist]);
  // Live fails closed: a currency without an approval limit makes every posting wait for a second person.
  // The local demo's limits are set here (as the demo data is, never in a deployed database) to what the
  // demo's opening balances need, so the break-glass token can fund them alone, once.
  const limits = `INSERT OR IGNORE INTO approval_limits (currency, amount, updated_at) VALUES ('USD', '100000', 0), ('EUR', '1000', 0)`;
  run(["d1", "execute", "DB", "--local", "--command", limits, ...persist]);
}

const portIndex = extra.findIndex((arg) => arg === "--port" || arg.startsWith("--port="));
const port =
  portIndex === -1 ? "8787" : extra[portIndex].includes("=") ? extra[portIndex].split("=")[1] : extra[portIndex + 1];
// Since wrangler.toml has `[secrets] required`, `wrangler dev` loads from .dev.vars only the secrets that
// list names, and the list holds only what a deploy cannot go without (ADMIN_TOKEN); the service reads
// more (UPSTREAM_API_KEY, ADMIN_TOKEN_PREVIOUS…). So wrangler dev runs on a copy of wrangler.toml, beside it
// (its paths stay right) and not committed, whose list also names every secret .dev.vars holds. A caller's
// own --config is left alone.
const ownConfig = extra.some((arg) => arg === "-c" || arg === "--config" || arg.startsWith("--config="));
const DEV_CONFIG = ".wrangler-dev.toml";
if (!ownConfig) writeFileSync(`${root}/${DEV_CONFIG}`, devConfig(readFileSync(`${root}/wrangler.toml`, "utf8")));

/** wrangler.toml with the secrets .dev.vars holds added to its top-level `[secrets] required` (names only). */
function devConfig(config) {
  const names = [...readFileSync(`${root}/.dev.vars`, "utf8").matchAll(/^\s*([A-Za-z_][A-Za-z0-9_]*)\s*=/gm)].map(
    (match) => match[1],
  );
  const list = /^\[secrets\]\nrequired = \[([^\]]*)\]$/m;
  const found = list.exec(config);
  if (found === null) throw new Error("wrangler.toml has no top-level [secrets] required list to extend");
  const required = [...new Set([...JSON.parse(`[${found[1]}]`), ...names])];
  return config.replace(
    list,
    `# Written by npm start (scripts/start.mjs) from wrangler.toml: every secret .dev.vars holds.\n[secrets]\nrequired = ${JSON.stringify(required)}`,
  );
}

// The mode goes first, so a --var SERVICE_MODE:… of the caller's own still has the last word.
const devArgs = [
  "dev",
  ...(ownConfig ? [] : ["--config", DEV_CONFIG]),
  "--var",
  `SERVICE_MODE:${mode}`,
  ...(portIndex === -1 ? ["--port", port] : []),
  ...extra,
];
const dev = spawn(process.execPath, [...wrangler, ...devArgs], { cwd: root, stdio: "inherit", env: localEnv });
for (const signal of ["SIGINT", "SIGTERM"]) process.on(signal, () => dev.kill(signal));
dev.on("exit", (code) => process.exit(code ?? 0));

// The demo webhook secret is the one the seed sets; read from there so the two cannot differ.
const demoWebhookSecret =
  /'(whsec_[A-Za-z0-9+/]{43}=)'/.exec(readFileSync(`${root}/schema/seed/demo.sql`, "utf8"))?.[1] ??
  "(see schema/seed/demo.sql)";

const DEMO_WALLETS = [
  ["USD", "100000"],
  ["EUR", "200"],
];

async function fundDemoWallets() {
  const base = `http://127.0.0.1:${port}`;
  for (let attempt = 0; attempt < 120; attempt += 1) {
    try {
      for (const [currency, amount] of DEMO_WALLETS) {
        const response = await fetch(`${base}/admin/wallets/demo/${currency}/top-ups`, {
          method: "POST",
          headers: { authorization: `Bearer ${adminToken}`, "content-type": "application/json" },
          body: JSON.stringify({ amount, idempotencyKey: `demo-seed-${currency}`, reason: "demo opening balance" }),
        });
        if (!response.ok) throw new Error(`top-up ${currency}: ${response.status} ${await response.text()}`);
        const { message } = await response.json();
        if (message === "Posting awaits approval")
          console.warn(
            `The demo's ${currency} top-up waits for a second person (dual control): its wallet is not funded.`,
          );
      }
      console.log(
        `\nDemo ready on ${base} in ${mode} mode: API key ${demoKey}, wallets USD 100000 and EUR 200 (opening balances).\n` +
          (live
            ? "Live mode: sk_test_ keys are refused (403 wrong_environment) and /sandbox/* is 404.\n"
            : "Sandbox helpers under /sandbox/* and the Sandbox-Outcome create header (docs/sandbox.md); npm start -- --live runs live mode.\n") +
          `Webhook secret (Standard Webhooks) ${demoWebhookSecret}\nAPI reference ${base}/docs\n`,
      );
      return;
    } catch {
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
  }
  console.error("Could not fund the demo wallets: the server did not answer in 60 s.");
}
void fundDemoWallets();
