#!/usr/bin/env node
/**
 * A stand-in for the `wrangler` executable, for test/deploy: it appends each call (argv, and the account it
 * was given) as a JSON line to FAKE_WRANGLER_LOG and answers from FAKE_WRANGLER_STATE, a JSON file holding
 * what "Cloudflare" has: the login, the D1 databases with their applied migrations, the R2 buckets, the queues, the Workers
 * with their secrets and deploy count. It does only what scripts/deploy.mjs asks of wrangler, the way the
 * pinned wrangler answers it; `failOn` (a prefix of the command, e.g. "d1 migrations apply") makes that
 * call exit 1, `hangOn` makes it hang until killed. It never opens a network connection.
 */
import { appendFileSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";

const statePath = process.env.FAKE_WRANGLER_STATE;
const logPath = process.env.FAKE_WRANGLER_LOG;
const argv = process.argv.slice(2);
appendFileSync(logPath, `${JSON.stringify({ argv, account: process.env.CLOUDFLARE_ACCOUNT_ID ?? null })}\n`);
const state = JSON.parse(readFileSync(statePath, "utf8"));
const save = () => writeFileSync(statePath, JSON.stringify(state, null, 2));

function option(name) {
  const index = argv.indexOf(name);
  return index === -1 ? undefined : argv[index + 1];
}
const positional = argv.filter(
  (arg, index) => !arg.startsWith("--") && !(index > 0 && ["--format", "--secrets-file"].includes(argv[index - 1])),
);
const command = positional.join(" ");
// scripts/deploy.mjs names the environment of every call as `--env=<name>` (`--env=` for the top level).
const env = argv.find((arg) => arg.startsWith("--env="))?.slice("--env=".length) ?? "";
/** What wrangler.toml names for this environment (the test keeps it in the state). */
const names = state.environments[env];

function die(message) {
  process.stderr.write(`✘ [ERROR] ${message}\n`);
  process.exit(1);
}

if (argv[0] === "--version") {
  process.stdout.write(`${state.version}\n`);
  process.exit(0);
}
if (state.failOn && command.startsWith(state.failOn)) die(`A request to the Cloudflare API failed (${state.failOn}).`);
// `hangOn` (a prefix of the command) makes that call hang until it is killed, as a slow upload would (for
// 30 s at most, so that a deploy script that fails to stop it leaves nothing running for long).
if (state.hangOn && command.startsWith(state.hangOn)) await new Promise(() => setTimeout(() => die("hung"), 30_000));

if (command === "whoami") {
  if (!state.loggedIn) die("Not logged in.");
  process.stdout.write(
    JSON.stringify({ loggedIn: true, authType: "OAuth Token", email: "ops@example.com", accounts: state.accounts }),
  );
} else if (command === "d1 list") {
  process.stdout.write(JSON.stringify(state.databases.map(({ name, uuid }) => ({ name, uuid }))));
} else if (command.startsWith("d1 create ")) {
  const name = positional[2];
  if (state.databases.some((db) => db.name === name)) die(`A database with that name already exists [code: 7502]`);
  state.databases.push({ name, uuid: `uuid-${name}`, applied: [] });
  save();
  process.stdout.write(`✅ Successfully created DB '${name}'\n`);
} else if (command.startsWith("d1 migrations ")) {
  const db = state.databases.find((d) => d.name === names.database);
  if (!db) die(`Couldn't find a D1 DB with the name or binding '${positional[3]}' in your wrangler.toml file.`);
  const files = readdirSync(join(process.cwd(), "schema", "migrations"))
    .filter((f) => f.endsWith(".sql"))
    .sort();
  const pending = files.filter((f) => !db.applied.includes(f));
  if (pending.length === 0) {
    process.stdout.write("✅ No migrations to apply!\n");
  } else if (positional[2] === "list") {
    process.stdout.write(`Migrations to be applied:\n${pending.map((f) => `│ ${f} │`).join("\n")}\n`);
  } else {
    db.applied.push(...pending);
    save();
    process.stdout.write(`${pending.map((f) => `│ ${f} │ ✅ │`).join("\n")}\n`);
  }
} else if (command === "r2 bucket list") {
  process.stdout.write(
    `Listing buckets...\n${(state.buckets ?? []).map((name) => `name:           ${name}\ncreation_date:  2026-12-01T00:00:00.000Z`).join("\n\n")}\n`,
  );
} else if (command.startsWith("r2 bucket create ")) {
  const name = positional[3];
  state.buckets ??= [];
  if (state.buckets.includes(name)) die(`The bucket you tried to create already exists, and you own it. [code: 10004]`);
  state.buckets.push(name);
  save();
  process.stdout.write(
    `Creating bucket '${name}'...\n✅ Created bucket '${name}' with default storage class of Standard.\n`,
  );
} else if (command === "secret list") {
  const worker = state.workers[names.worker];
  if (!worker) die(`This Worker does not exist on your account. [code: 10007]`);
  process.stdout.write(JSON.stringify(Object.keys(worker.secrets).map((name) => ({ name, type: "secret_text" }))));
} else if (command === "deploy") {
  const secretsFile = option("--secrets-file");
  const uploaded = secretsFile ? JSON.parse(readFileSync(secretsFile, "utf8")) : {};
  const worker = state.workers[names.worker] ?? { secrets: {}, deploys: 0 };
  const missing = names.requiredSecrets.filter((name) => !(name in worker.secrets) && !(name in uploaded));
  if (missing.length > 0) die(`The following required secrets have not been set: ${missing.join(", ")}`);
  if (!state.databases.some((d) => d.name === names.database))
    die(`D1 ${names.database} does not exist and would be provisioned empty`);
  for (const bucket of names.buckets ?? [])
    if (!(state.buckets ?? []).includes(bucket)) die(`R2 bucket '${bucket}' not found [code: 10006]`);
  // The pinned wrangler provisions producer queues by name before the upload.
  for (const queue of names.queues) if (!state.queues.includes(queue)) state.queues.push(queue);
  Object.assign(worker.secrets, uploaded);
  worker.deploys += 1;
  state.workers[names.worker] = worker;
  save();
  process.stdout.write(
    `Uploaded ${names.worker}\nDeployed ${names.worker} triggers\n  ${state.url}\nCurrent Version ID: v${worker.deploys}\n`,
  );
} else {
  die(`fake wrangler: no answer for \`${argv.join(" ")}\``);
}
