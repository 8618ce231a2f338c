#!/usr/bin/env node
/**
 * `npm run deploy [-- --env sandbox] [-- --plan] [-- --url https://…]`: from a logged-in wrangler to a working
 * service, in six steps that each check before they change anything, so that running it again changes
 * nothing and a run that stopped half way resumes where it stopped (docs/deploy.md):
 *
 *   1. preflight: Node and wrangler versions, the login, the account, the configuration;
 *   2. resources: the D1 database (created here: the migrations must run before the code, and wrangler's own
 *      provisioning only happens inside `wrangler deploy`); the R2 bucket of the exports across clients
 *      (created here too, so that the Worker never runs bound to a bucket that is not there); the queues and
 *      the dead-letter queue are producer bindings, which the pinned wrangler provisions by name during
 *      `wrangler deploy`, before the upload;
 *   3. remote D1 migrations, before the new code goes live;
 *   4. secrets: those the Worker lacks, uploaded with the deploy itself (`--secrets-file`, a 0600 file that
 *      is removed afterwards, and when the run is interrupted by SIGINT, SIGTERM or SIGHUP), never on a
 *      command line or in the output. A generated ADMIN_TOKEN (and LEDGER_EXPORT_KEY, the ledger exports'
 *      signing key) is "shown once" by writing it to a 0600 file whose path is printed; a note beside it
 *      names the account and Worker it was made for, so that only a run resuming that same deploy uses it
 *      again;
 *   5. `wrangler deploy`;
 *   6. a check of the deployed URL: /health, /openapi.json equals schema/openapi.json, admin auth works.
 *
 * `--plan` runs only wrangler's read-only commands and prints what the other steps would do.
 * The wrangler it runs is WRANGLER_BIN when set (the tests' stand-in), else the pinned one with the pinned
 * Node (wrangler needs Node ≥ 22; this script itself runs on Node 20).
 */
import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { constants, tmpdir } from "node:os";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { isDeepStrictEqual, parseArgs } from "node:util";
import { upstreamMismatch } from "./supplier-environment.mjs";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");

export const STEPS = ["preflight", "resources", "D1 migrations", "secrets", "deploy", "post-deploy check"];

class StepFailure extends Error {}

/** Every secret value this run knows: removed from anything it prints, whatever printed it. */
const secretValues = new Set();
function scrub(text) {
  let out = String(text);
  for (const value of secretValues) if (value.length > 0) out = out.split(value).join("[redacted]");
  return out;
}
const say = (line = "") => process.stdout.write(`${scrub(line)}\n`);

function parseOptions(argv) {
  const { values } = parseArgs({
    args: argv,
    options: {
      env: { type: "string" },
      plan: { type: "boolean", default: false },
      url: { type: "string" },
      config: { type: "string", default: "wrangler.toml" },
      help: { type: "boolean", default: false },
    },
    strict: true,
  });
  return values;
}

/** The wrangler to run: [command, ...leading args]. */
function wranglerCommand() {
  if (process.env.WRANGLER_BIN) return [process.env.WRANGLER_BIN];
  const pinnedNode = join(root, "node_modules", "node", "bin", "node");
  const wranglerJs = join(root, "node_modules", "wrangler", "bin", "wrangler.js");
  return [existsSync(pinnedNode) ? pinnedNode : process.execPath, wranglerJs];
}

/**
 * Runs wrangler with stdin closed (wrangler then never prompts: it takes its non-interactive answers), and
 * answers its exit code and output. The account chosen in the preflight goes to every call.
 */
function wrangler(args, { account, echo = false } = {}) {
  const [command, ...lead] = wranglerCommand();
  const env = { ...process.env, WRANGLER_SEND_METRICS: "false" };
  if (account) env.CLOUDFLARE_ACCOUNT_ID = account;
  return new Promise((resolvePromise, reject) => {
    const child = spawn(command, [...lead, ...args], { cwd: root, env, stdio: ["ignore", "pipe", "pipe"] });
    running.add(child);
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk) => {
      stdout += chunk;
      if (echo) process.stdout.write(scrub(chunk));
    });
    child.stderr.on("data", (chunk) => {
      stderr += chunk;
      if (echo) process.stderr.write(scrub(chunk));
    });
    child.on("error", reject);
    child.on("close", (code) => {
      running.delete(child);
      resolvePromise({ code: code ?? 1, stdout, stderr });
    });
  });
}

/** The wrangler processes running now: an interrupted deploy passes its signal on to them. */
const running = new Set();

/** wrangler's answer, or the step stops with the command and the end of what wrangler said. */
async function mustRun(args, options) {
  const result = await wrangler(args, options);
  if (result.code !== 0) {
    const said = `${result.stderr}\n${result.stdout}`.trim().split("\n").slice(-8).join("\n");
    throw new StepFailure(`\`wrangler ${args.join(" ")}\` exited with ${result.code}:\n${said}`);
  }
  return result;
}

function parseJson(text, what) {
  // wrangler may print a banner or warnings before the JSON.
  const start = text.search(/[[{]/);
  try {
    return JSON.parse(text.slice(start));
  } catch {
    throw new StepFailure(`could not read ${what} from wrangler's answer`);
  }
}

/** Every call names its environment: `--env=` is the top level, which also keeps wrangler from warning that none was chosen. */
const envArgs = (env) => [`--env=${env ?? ""}`];

/** The resolved configuration of one environment, as wrangler itself reads it. */
async function readConfig(configPath, env) {
  const { unstable_readConfig } = await import("wrangler");
  return unstable_readConfig({ config: resolve(root, configPath), env }, { hideWarnings: true });
}

/** The resources an environment names, for the plan and the check that the sandbox shares none with live. */
function resourcesOf(config) {
  const producers = config.queues?.producers ?? [];
  const consumers = config.queues?.consumers ?? [];
  const queues = [
    ...new Set([
      ...producers.map((p) => p.queue),
      ...consumers.map((c) => c.queue),
      ...consumers.map((c) => c.dead_letter_queue).filter(Boolean),
    ]),
  ];
  return {
    worker: config.name,
    databases: (config.d1_databases ?? []).map((d) => ({
      binding: d.binding,
      name: d.database_name,
      id: d.database_id,
    })),
    queues,
    provisionedQueues: new Set(producers.map((p) => p.queue)),
    buckets: (config.r2_buckets ?? []).map((b) => ({ binding: b.binding, name: b.bucket_name })),
  };
}

/** The secrets this configuration needs: the required list, and UPSTREAM_API_KEY when an upstream supplier is configured. */
function neededSecrets(config) {
  const needed = [...(config.secrets?.required ?? [])];
  if ((config.vars?.UPSTREAM_BASE_URL ?? "") !== "" && !needed.includes("UPSTREAM_API_KEY"))
    needed.push("UPSTREAM_API_KEY");
  return needed;
}

function tokenDir() {
  return process.env.DEPLOY_SECRETS_DIR ? resolve(process.env.DEPLOY_SECRETS_DIR) : join(root, ".wrangler", "deploy");
}

/** Where a generated secret is shown once: a file only its owner can read (.wrangler/ is git-ignored). */
function secretFile(worker, name) {
  return join(tokenDir(), `${worker}.${name}`);
}

/**
 * The note beside a generated token: the account and Worker it was made for, and whether a deploy has
 * uploaded it. A run that finds the Worker without ADMIN_TOKEN uses a token file again only when its note
 * says it was made for this account and Worker and never uploaded (the resume of a deploy that stopped);
 * any other file lingering there is another deploy's break-glass token, which must not become this one's.
 */
function secretNoteFile(worker, name) {
  return `${secretFile(worker, name)}.json`;
}

function readSecretNote(worker, name) {
  try {
    return JSON.parse(readFileSync(secretNoteFile(worker, name), "utf8"));
  } catch {
    return null;
  }
}

function writeSecretNote(worker, name, note) {
  writeFileSync(secretNoteFile(worker, name), `${JSON.stringify(note)}\n`, { mode: 0o600 });
}

/** Whether the token file was made for this account and Worker (null: no note, e.g. an older run's file). */
function tokenMadeFor(note, account, worker) {
  return note !== null && note.account === account && note.worker === worker;
}

function newAdminToken() {
  return `adm_${randomBytes(32).toString("base64url")}`;
}

// ---------------------------------------------------------------------------------------------- the steps

async function preflight(options) {
  const [major] = process.versions.node.split(".").map(Number);
  if (major < 20) throw new StepFailure(`Node ${process.versions.node}: this script needs Node 20 or newer`);
  const pinned = JSON.parse(readFileSync(join(root, "package.json"), "utf8")).devDependencies.wrangler;
  const version = (await mustRun(["--version"])).stdout;
  if (!version.includes(pinned))
    throw new StepFailure(`wrangler answers version ${version.trim()}, the project pins ${pinned}: run \`npm ci\``);
  say(`  Node ${process.versions.node}, wrangler ${pinned}`);

  const who = await wrangler(["whoami", "--json"]);
  if (who.code !== 0)
    throw new StepFailure(
      "wrangler is not logged in: run `npx wrangler login` (or set CLOUDFLARE_API_TOKEN) and try again",
    );
  const user = parseJson(who.stdout, "the login");
  if (!user.loggedIn)
    throw new StepFailure(
      "wrangler is not logged in: run `npx wrangler login` (or set CLOUDFLARE_API_TOKEN) and try again",
    );
  const accounts = user.accounts ?? [];
  const config = await readConfig(options.config, options.env);
  const wanted = process.env.CLOUDFLARE_ACCOUNT_ID || config.account_id;
  let account;
  if (wanted) {
    account = accounts.find((a) => a.id === wanted);
    if (!account)
      throw new StepFailure(`account ${wanted} (CLOUDFLARE_ACCOUNT_ID or account_id) is not one this login can use`);
  } else if (accounts.length === 1) {
    account = accounts[0];
  } else {
    const list = accounts.map((a) => `  ${a.id}  ${a.name}`).join("\n");
    throw new StepFailure(
      `this login can use ${accounts.length} accounts; choose one with CLOUDFLARE_ACCOUNT_ID=<id>:\n${list}`,
    );
  }
  say(`  logged in${user.email ? ` as ${user.email}` : ""}; account ${account.name} (${account.id})`);

  const resources = resourcesOf(config);
  for (const db of resources.databases) {
    if (db.id && /^0{8}-/.test(db.id))
      throw new StepFailure(
        `D1 binding ${db.binding} has the placeholder database_id ${db.id}: remove it (the database is found by its name)`,
      );
  }
  if (options.env) {
    const live = resourcesOf(await readConfig(options.config, undefined));
    const shared = [
      ...(live.worker === resources.worker ? [`Worker ${resources.worker}`] : []),
      ...resources.databases.filter((d) => live.databases.some((l) => l.name === d.name)).map((d) => `D1 ${d.name}`),
      ...resources.queues.filter((q) => live.queues.includes(q)).map((q) => `queue ${q}`),
      ...resources.buckets.filter((b) => live.buckets.some((l) => l.name === b.name)).map((b) => `R2 ${b.name}`),
    ];
    if (shared.length > 0)
      throw new StepFailure(`[env.${options.env}] shares ${shared.join(", ")} with the top-level (live) configuration`);
  }
  const mismatch = upstreamMismatch(config.vars ?? {});
  if (mismatch !== null) throw new StepFailure(`${options.env ? `[env.${options.env}]` : "live"}: ${mismatch}`);
  say(
    `  Worker ${resources.worker}${options.env ? ` ([env.${options.env}])` : ""}; secrets it needs: ${neededSecrets(config).join(", ") || "none"}`,
  );
  return { config, resources, account: account.id };
}

async function createResources(state, options) {
  const listed = parseJson(
    (await mustRun(["d1", "list", "--json", ...envArgs(options.env)], { account: state.account })).stdout,
    "the D1 databases",
  );
  const existing = new Set(listed.map((d) => d.name));
  for (const db of state.resources.databases) {
    if (existing.has(db.name)) {
      say(`  D1 ${db.name}: exists`);
    } else if (options.plan) {
      say(`  D1 ${db.name}: would be created (wrangler d1 create ${db.name})`);
      state.newDatabases.add(db.name);
    } else {
      await mustRun(["d1", "create", db.name, ...envArgs(options.env)], { account: state.account });
      say(`  D1 ${db.name}: created`);
      state.newDatabases.add(db.name);
    }
  }
  await createBuckets(state, options);
  for (const queue of state.resources.queues) {
    if (state.resources.provisionedQueues.has(queue)) {
      say(`  queue ${queue}: a producer binding; wrangler deploy creates it if it is missing, before the upload`);
    } else {
      // A queue only consumed (or only a dead-letter target) is not provisioned by wrangler: create it here.
      const list = await mustRun(["queues", "list", ...envArgs(options.env)], { account: state.account });
      if (new RegExp(`(^|\\s|│)${queue}(\\s|│|$)`, "m").test(list.stdout)) say(`  queue ${queue}: exists`);
      else if (options.plan) say(`  queue ${queue}: would be created (wrangler queues create ${queue})`);
      else {
        await mustRun(["queues", "create", queue, ...envArgs(options.env)], { account: state.account });
        say(`  queue ${queue}: created`);
      }
    }
  }
}

/** The R2 buckets: listed once (`wrangler r2 bucket list` prints `name: <bucket>` per bucket), each missing one created. */
async function createBuckets(state, options) {
  if (state.resources.buckets.length === 0) return;
  const listed = (await mustRun(["r2", "bucket", "list", ...envArgs(options.env)], { account: state.account })).stdout;
  for (const bucket of state.resources.buckets) {
    if (new RegExp(`^name:\\s+${bucket.name}\\s*$`, "m").test(listed)) say(`  R2 ${bucket.name}: exists`);
    else if (options.plan) say(`  R2 ${bucket.name}: would be created (wrangler r2 bucket create ${bucket.name})`);
    else {
      await mustRun(["r2", "bucket", "create", bucket.name, ...envArgs(options.env)], { account: state.account });
      say(`  R2 ${bucket.name}: created`);
    }
  }
}

async function migrate(state, options) {
  const migrations = readdirSync(join(root, "schema", "migrations")).filter((f) => f.endsWith(".sql"));
  for (const db of state.resources.databases) {
    if (options.plan) {
      if (state.newDatabases.has(db.name)) {
        say(`  D1 ${db.name}: would apply all ${migrations.length} migrations (${migrations.join(", ")})`);
        continue;
      }
      const listed = await mustRun(["d1", "migrations", "list", db.binding, "--remote", ...envArgs(options.env)], {
        account: state.account,
      });
      const pending = migrations.filter((name) => listed.stdout.includes(name));
      say(
        pending.length === 0
          ? `  D1 ${db.name}: no migrations to apply`
          : `  D1 ${db.name}: would apply ${pending.join(", ")}`,
      );
      continue;
    }
    const applied = await mustRun(["d1", "migrations", "apply", db.binding, "--remote", ...envArgs(options.env)], {
      account: state.account,
    });
    const done = migrations.filter((name) => applied.stdout.includes(name));
    say(done.length === 0 ? `  D1 ${db.name}: no migrations to apply` : `  D1 ${db.name}: applied ${done.join(", ")}`);
  }
}

/**
 * The secrets this script makes itself when the Worker lacks them, each shown once in a 0600 file of its
 * own: ADMIN_TOKEN, the break-glass token, and LEDGER_EXPORT_KEY, which signs the wallets' ledger exports
 * (a secret of its own, so that holding the break-glass token is not holding the means to sign a ledger:
 * keep the two apart, and the export key wherever the exports are kept, since restoring them into a new
 * deployment needs it).
 */
const GENERATED = new Map([
  ["ADMIN_TOKEN", { make: newAdminToken, keep: "Store it in your password manager, then delete the file." }],
  [
    "LEDGER_EXPORT_KEY",
    {
      make: () => randomBytes(32).toString("base64url"),
      keep: "Store it apart from ADMIN_TOKEN, where the ledger exports' restores can reach it, then delete the file.",
    },
  ],
]);

/**
 * Generates `name` for a Worker that lacks it, or takes the one a run that stopped before its deploy
 * generated (its note says so); any other file lingering there is refused, neither reused (two Workers would
 * share one secret) nor overwritten (it may be the only copy of a secret in use). Answers whether it will
 * be uploaded (false under --plan).
 */
function generateSecret(state, options, name) {
  const worker = state.resources.worker;
  const file = secretFile(worker, name);
  if (options.plan) {
    say(
      `  ${name}: would be generated and uploaded with the deploy; shown once in ${relative(root, file) || file} (mode 0600)`,
    );
    return false;
  }
  let value = existsSync(file) ? readFileSync(file, "utf8").trim() : "";
  const note = readSecretNote(worker, name);
  if (existsSync(file) && !(tokenMadeFor(note, state.account, worker) && note.uploaded === false)) {
    const made = note === null ? "an earlier deploy" : `account ${note.account}'s Worker ${note.worker}`;
    throw new StepFailure(
      `${file} holds ${name === "ADMIN_TOKEN" ? "an" : "a"} ${name} made for ${made}, and ${worker} has none: store that ${name === "ADMIN_TOKEN" ? "token" : "key"}, delete the file (and its .json note), and run again for a new one`,
    );
  }
  if (value.length < 16) {
    value = GENERATED.get(name).make();
    mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
    writeFileSync(file, `${value}\n`, { mode: 0o600 });
    writeSecretNote(worker, name, { account: state.account, worker, uploaded: false });
  }
  chmodSync(file, 0o600);
  secretValues.add(value);
  state.uploadSecrets[name] = value;
  if (name === "ADMIN_TOKEN") state.adminToken = value;
  (state.shownOnce ??= []).push({ name, file });
  say(`  ${name}: generated; it will be uploaded with the deploy`);
  return true;
}

async function prepareSecrets(state, options) {
  const needed = neededSecrets(state.config);
  const listed = await wrangler(["secret", "list", "--format", "json", ...envArgs(options.env)], {
    account: state.account,
  });
  let present;
  if (listed.code === 0) {
    present = new Set(parseJson(listed.stdout, "the Worker's secrets").map((s) => s.name));
  } else if (/10007|does not exist|not found/i.test(`${listed.stderr}${listed.stdout}`)) {
    present = new Set(); // the first deploy: the Worker does not exist yet
  } else {
    throw new StepFailure(
      `\`wrangler secret list\` exited with ${listed.code}:\n${scrub(listed.stderr.trim().split("\n").slice(-5).join("\n"))}`,
    );
  }
  const missing = needed.filter((name) => !present.has(name));
  for (const name of needed.filter((n) => present.has(n))) say(`  ${name}: set on the Worker`);
  state.uploadSecrets = {};
  for (const name of missing) {
    if (GENERATED.has(name)) {
      if (!generateSecret(state, options, name)) continue;
    } else {
      const value = process.env[name];
      if (!value)
        throw new StepFailure(
          `${name} is not set on the Worker: export ${name}=… in this shell and run again (it is read from the environment, never printed)`,
        );
      secretValues.add(value);
      if (options.plan) say(`  ${name}: would be uploaded with the deploy (from this shell's environment)`);
      else {
        state.uploadSecrets[name] = value;
        say(`  ${name}: taken from this shell's environment; it will be uploaded with the deploy`);
      }
    }
  }
  if (missing.length === 0) say("  nothing to upload");
}

async function deploy(state, options) {
  const names = Object.keys(state.uploadSecrets ?? {});
  if (options.plan) {
    say(`  would run: wrangler deploy --env=${options.env ?? ""}`);
    return;
  }
  const args = ["deploy", ...envArgs(options.env)];
  let secretsDir;
  // Interrupted (Ctrl-C, a CI job cancelled, the terminal closed), the run removes the secrets file before
  // it goes, and stops wrangler. SIGKILL cannot be caught: the file is then left in the system's temporary
  // directory, readable only by its owner.
  const interrupted = (signal) => {
    if (secretsDir) rmSync(secretsDir, { recursive: true, force: true });
    for (const child of running) child.kill(signal);
    process.stderr.write(`Interrupted by ${signal} during \`wrangler deploy\`: the secrets file was removed.\n`);
    process.exit(128 + (constants.signals[signal] ?? 1));
  };
  const signals = ["SIGINT", "SIGTERM", "SIGHUP"];
  for (const signal of signals) process.on(signal, interrupted);
  try {
    if (names.length > 0) {
      // Code and secrets in one version: the new code never runs without its secrets.
      secretsDir = mkdtempSync(join(tmpdir(), "order-service-deploy-"));
      const secretsPath = join(secretsDir, "secrets.json");
      writeFileSync(secretsPath, JSON.stringify(state.uploadSecrets), { mode: 0o600 });
      args.push("--secrets-file", secretsPath);
    }
    const result = await mustRun(args, { account: state.account, echo: true });
    state.deployOutput = result.stdout;
  } finally {
    for (const signal of signals) process.off(signal, interrupted);
    if (secretsDir) rmSync(secretsDir, { recursive: true, force: true });
  }
  for (const { name, file } of state.shownOnce ?? []) {
    const worker = state.resources.worker;
    writeSecretNote(worker, name, { account: state.account, worker, uploaded: true });
    // The one line about each generated secret: where it is, never what it is.
    say(`  ${name} shown once: ${file} (mode 0600). ${GENERATED.get(name).keep}`);
  }
}

/** The URL wrangler printed for the deployed Worker (workers.dev or a custom domain), or --url. */
function deployedUrl(state, options) {
  if (options.url) return options.url.replace(/\/+$/, "");
  const match = /^\s*(https?:\/\/[^\s]+)\s*$/m.exec(state.deployOutput ?? "");
  return match ? match[1].replace(/\/+$/, "") : null;
}

async function fetchWithRetry(url, init, accept) {
  const attempts = Number(process.env.DEPLOY_CHECK_ATTEMPTS ?? 10);
  const delay = Number(process.env.DEPLOY_CHECK_DELAY_MS ?? 3000);
  let last = "";
  for (let attempt = 1; attempt <= attempts; attempt += 1) {
    try {
      const response = await fetch(url, { ...init, signal: AbortSignal.timeout(10_000) });
      const body = await response.text();
      if (accept(response, body)) return { response, body };
      last = `${response.status}`;
    } catch (error) {
      last = error instanceof Error ? error.message : String(error);
    }
    if (attempt < attempts) await new Promise((r) => setTimeout(r, delay));
  }
  throw new StepFailure(
    `${new URL(url).pathname} did not answer as expected after ${attempts} attempts (last: ${last})`,
  );
}

async function postDeployCheck(state, options) {
  if (options.plan) {
    say("  would check /health, that /openapi.json equals schema/openapi.json, and admin auth");
    return;
  }
  const url = deployedUrl(state, options);
  if (url === null)
    throw new StepFailure("wrangler printed no URL for the Worker: run again with `-- --url https://your.domain`");
  say(`  ${url}`);
  await fetchWithRetry(`${url}/health`, {}, (r) => r.status === 200);
  say("  /health: 200");
  const expected = JSON.parse(readFileSync(join(root, "schema", "openapi.json"), "utf8"));
  const { body } = await fetchWithRetry(`${url}/openapi.json`, {}, (r) => r.status === 200);
  let served;
  try {
    served = JSON.parse(body);
  } catch {
    throw new StepFailure("/openapi.json is not JSON");
  }
  if (!isDeepStrictEqual(served, expected))
    throw new StepFailure("/openapi.json differs from schema/openapi.json: the deployed code is not this checkout's");
  say("  /openapi.json: equals schema/openapi.json");
  const refused = await fetch(`${url}/admin/clients?limit=1`, { signal: AbortSignal.timeout(10_000) });
  if (refused.status !== 403)
    throw new StepFailure(`/admin/clients without a token answered ${refused.status}, not 403`);
  // The token file only when it was made for this account and Worker: another deploy's token is not sent.
  const worker = state.resources.worker;
  const token =
    state.adminToken ??
    process.env.ADMIN_TOKEN ??
    (existsSync(secretFile(worker, "ADMIN_TOKEN")) &&
    tokenMadeFor(readSecretNote(worker, "ADMIN_TOKEN"), state.account, worker)
      ? readFileSync(secretFile(worker, "ADMIN_TOKEN"), "utf8").trim()
      : "");
  if (token) {
    secretValues.add(token);
    await fetchWithRetry(
      `${url}/admin/clients?limit=1`,
      { headers: { authorization: `Bearer ${token}` } },
      (r) => r.status === 200,
    );
    say("  admin auth: refused without the token, accepted with it");
  } else {
    say("  admin auth: refused without a token (export ADMIN_TOKEN to check it is accepted with yours)");
  }
}

// ---------------------------------------------------------------------------------------------- main

export async function main(argv) {
  let options;
  try {
    options = parseOptions(argv);
  } catch (error) {
    process.stderr.write(
      `${error instanceof Error ? error.message : error}\nUsage: npm run deploy [-- --env sandbox] [-- --plan] [-- --url https://…]\n`,
    );
    return 2;
  }
  if (options.help) {
    say("Usage: npm run deploy [-- --env sandbox] [-- --plan] [-- --url https://…]   (docs/deploy.md)");
    return 0;
  }
  const target = options.env ? `[env.${options.env}]` : "live (top level)";
  say(options.plan ? `Plan for ${target}: nothing is changed.` : `Deploying ${target}.`);
  const state = { newDatabases: new Set() };
  const runners = [
    async () => Object.assign(state, await preflight(options)),
    () => createResources(state, options),
    () => migrate(state, options),
    () => prepareSecrets(state, options),
    () => deploy(state, options),
    () => postDeployCheck(state, options),
  ];
  for (const [index, run] of runners.entries()) {
    say(`[${index + 1}/${STEPS.length}] ${STEPS[index]}`);
    try {
      await run();
    } catch (error) {
      const reason =
        error instanceof StepFailure
          ? error.message
          : error instanceof Error
            ? (error.stack ?? error.message)
            : String(error);
      process.stderr.write(
        `${scrub(`Stopped at step ${index + 1}/${STEPS.length} (${STEPS[index]}): ${reason}`)}\n` +
          `Steps after it did not run. Fix the cause and run the same command again: every step checks before it changes anything.\n`,
      );
      return 1;
    }
  }
  say(options.plan ? "Plan complete: nothing was changed." : `Done: ${target} is deployed and answers.`);
  return 0;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  process.exitCode = await main(process.argv.slice(2));
}
