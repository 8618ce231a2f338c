/**
 * `npm run deploy` (scripts/deploy.mjs) against a stand-in for wrangler (fake-wrangler.mjs) that records
 * its calls, and a stand-in for the deployed Worker on 127.0.0.1: the order of the steps, a second run that
 * changes nothing, --plan, the sandbox, a failed step stopping the rest, and no secret in any output.
 * Runs in Node (the "deploy" project of vitest.config.ts): no network beyond 127.0.0.1.
 */
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";

const root = resolve(fileURLToPath(new URL("../..", import.meta.url)));
const fake = join(root, "test", "deploy", "fake-wrangler.mjs");
const checkedInDocument = readFileSync(join(root, "schema", "openapi.json"), "utf8");
const pinnedWrangler = JSON.parse(readFileSync(join(root, "package.json"), "utf8")).devDependencies.wrangler;
// The project's own migrations, as wrangler would find them.
const MIGRATIONS = readdirSync(new URL("../../schema/migrations/", import.meta.url))
  .filter((name) => name.endsWith(".sql"))
  .sort();

let dir;
let server;
let url;
/** What the stand-in Worker serves as its document (the test changes it to see the check fail). */
let servedDocument = checkedInDocument;

const statePath = () => join(dir, "state.json");
const logPath = () => join(dir, "calls.jsonl");
const readState = () => JSON.parse(readFileSync(statePath(), "utf8"));
const calls = () =>
  existsSync(logPath())
    ? readFileSync(logPath(), "utf8")
        .trim()
        .split("\n")
        .filter(Boolean)
        .map((line) => JSON.parse(line))
    : [];
const commands = () => calls().map((call) => call.argv.filter((arg) => !arg.startsWith("/")).join(" "));

function writeState(changes = {}) {
  writeFileSync(
    statePath(),
    JSON.stringify({
      version: `\n ⛅️ wrangler ${pinnedWrangler}\n`,
      loggedIn: true,
      accounts: [{ id: "acc123", name: "Reseller Ops" }],
      databases: [],
      buckets: [],
      queues: [],
      workers: {},
      url,
      failOn: null,
      environments: {
        "": {
          worker: "order-service",
          database: "order-service",
          queues: ["order-webhooks", "order-webhooks-dlq"],
          buckets: ["order-exports"],
          requiredSecrets: ["ADMIN_TOKEN", "LEDGER_EXPORT_KEY"],
        },
        sandbox: {
          worker: "order-service-sandbox",
          database: "order-service-sandbox",
          queues: ["order-webhooks-sandbox", "order-webhooks-sandbox-dlq"],
          buckets: ["order-exports-sandbox"],
          requiredSecrets: ["ADMIN_TOKEN", "LEDGER_EXPORT_KEY"],
        },
      },
      ...changes,
    }),
  );
}

/** Runs the script to its end; `started` is handed the process (to signal it). */
function runDeploy(args = [], extraEnv = {}, started = () => {}) {
  return new Promise((resolvePromise) => {
    const child = spawn(process.execPath, [join(root, "scripts", "deploy.mjs"), ...args], {
      cwd: root,
      env: {
        PATH: process.env.PATH,
        HOME: dir,
        WRANGLER_BIN: fake,
        FAKE_WRANGLER_STATE: statePath(),
        FAKE_WRANGLER_LOG: logPath(),
        DEPLOY_SECRETS_DIR: join(dir, "secrets"),
        DEPLOY_CHECK_ATTEMPTS: "2",
        DEPLOY_CHECK_DELAY_MS: "10",
        ...extraEnv,
      },
      stdio: ["ignore", "pipe", "pipe"],
    });
    started(child);
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk) => (stdout += chunk));
    child.stderr.on("data", (chunk) => (stderr += chunk));
    child.on("close", (code) => resolvePromise({ code, stdout, stderr }));
  });
}

/** The ADMIN_TOKEN the fake "uploaded" for a Worker (what the deployed Worker would compare with). */
function adminTokenOf(worker) {
  return readState().workers[worker]?.secrets.ADMIN_TOKEN;
}

beforeAll(async () => {
  server = createServer((request, response) => {
    const path = new URL(request.url, "http://127.0.0.1").pathname;
    if (path === "/health")
      return void response
        .writeHead(200, { "content-type": "application/json" })
        .end('{"message":"OK","data":{"status":"ok"}}');
    if (path === "/openapi.json")
      return void response.writeHead(200, { "content-type": "application/json" }).end(servedDocument);
    if (path === "/admin/clients") {
      const token = adminTokenOf(currentWorker);
      const ok = token !== undefined && request.headers.authorization === `Bearer ${token}`;
      return void response
        .writeHead(ok ? 200 : 403, { "content-type": "application/json" })
        .end(
          ok
            ? '{"message":"Clients","data":{"clients":[],"next":null}}'
            : '{"message":"Authentication credentials are missing or invalid","code":"unauthenticated"}',
        );
    }
    response.writeHead(404).end();
  });
  await new Promise((r) => server.listen(0, "127.0.0.1", r));
  url = `http://127.0.0.1:${server.address().port}`;
});
afterAll(() => new Promise((r) => server.close(r)));

/** Which Worker the stand-in server plays (the one the test deploys). */
let currentWorker = "order-service";

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "deploy-test-"));
  servedDocument = checkedInDocument;
  currentWorker = "order-service";
  writeState();
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe("npm run deploy", () => {
  it("runs preflight, resources, migrations, secrets, deploy and the check, in that order, on a fresh account", async () => {
    const result = await runDeploy();
    expect(result.stderr).toBe("");
    expect(result.code).toBe(0);
    expect(commands()).toEqual([
      "--version",
      "whoami --json",
      "d1 list --json --env=",
      "d1 create order-service --env=",
      "r2 bucket list --env=",
      "r2 bucket create order-exports --env=",
      "d1 migrations apply DB --remote --env=",
      "secret list --format json --env=",
      "deploy --env= --secrets-file",
    ]);
    // The account the preflight chose goes to every call after it.
    expect(
      calls()
        .slice(2)
        .every((call) => call.account === "acc123"),
    ).toBe(true);
    const state = readState();
    expect(state.databases).toEqual([{ name: "order-service", uuid: "uuid-order-service", applied: MIGRATIONS }]);
    expect(state.queues).toEqual(["order-webhooks", "order-webhooks-dlq"]);
    // The exports' R2 bucket is created like the database, before the Worker that binds it is uploaded.
    expect(state.buckets).toEqual(["order-exports"]);
    expect(result.stdout).toContain("R2 order-exports: created");
    expect(Object.keys(state.workers["order-service"].secrets)).toEqual(["ADMIN_TOKEN", "LEDGER_EXPORT_KEY"]);
    // The steps are printed in order, and the check reached the deployed URL.
    const steps = [...result.stdout.matchAll(/^\[(\d)\/6\] (.+)$/gm)].map((m) => m[2]);
    expect(steps).toEqual(["preflight", "resources", "D1 migrations", "secrets", "deploy", "post-deploy check"]);
    expect(result.stdout).toContain("/openapi.json: equals schema/openapi.json");
    expect(result.stdout).toContain("admin auth: refused without the token, accepted with it");
    expect(result.stdout).toContain(`applied ${MIGRATIONS.join(", ")}`);
  });

  it("shows the generated ADMIN_TOKEN once, in a 0600 file, and never in any output, argument or leftover file", async () => {
    const result = await runDeploy();
    expect(result.code).toBe(0);
    const token = adminTokenOf("order-service");
    expect(token).toMatch(/^adm_[A-Za-z0-9_-]{43}$/);
    const tokenFile = join(dir, "secrets", "order-service.ADMIN_TOKEN");
    expect(readFileSync(tokenFile, "utf8").trim()).toBe(token);
    expect(statSync(tokenFile).mode & 0o777).toBe(0o600);
    expect(result.stdout + result.stderr).not.toContain(token);
    expect(readFileSync(logPath(), "utf8")).not.toContain(token);
    // Exactly one line speaks of it, and it names the file.
    const lines = result.stdout.split("\n").filter((line) => line.includes(tokenFile));
    expect(lines).toEqual([
      `  ADMIN_TOKEN shown once: ${tokenFile} (mode 0600). Store it in your password manager, then delete the file.`,
    ]);
    // The secrets file handed to wrangler deploy is gone.
    const secretsFile = calls()
      .find((call) => call.argv[0] === "deploy")
      .argv.at(-1);
    expect(existsSync(secretsFile)).toBe(false);
  });

  it("generates LEDGER_EXPORT_KEY, a secret of its own, shown once in a 0600 file and never printed; an upgrade adds only it", async () => {
    // A Worker deployed before the export key existed: it has ADMIN_TOKEN and nothing else.
    writeState({
      workers: { "order-service": { secrets: { ADMIN_TOKEN: "adm_already-set-before-the-upgrade" }, deploys: 1 } },
    });
    const result = await runDeploy();
    expect(result.code, result.stderr).toBe(0);
    const secrets = readState().workers["order-service"].secrets;
    expect(secrets.ADMIN_TOKEN).toBe("adm_already-set-before-the-upgrade");
    expect(secrets.LEDGER_EXPORT_KEY).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const keyFile = join(dir, "secrets", "order-service.LEDGER_EXPORT_KEY");
    expect(readFileSync(keyFile, "utf8").trim()).toBe(secrets.LEDGER_EXPORT_KEY);
    expect(statSync(keyFile).mode & 0o777).toBe(0o600);
    expect(existsSync(join(dir, "secrets", "order-service.ADMIN_TOKEN"))).toBe(false);
    expect(result.stdout + result.stderr).not.toContain(secrets.LEDGER_EXPORT_KEY);
    expect(readFileSync(logPath(), "utf8")).not.toContain(secrets.LEDGER_EXPORT_KEY);
    expect(result.stdout).toContain("ADMIN_TOKEN: set on the Worker");
    expect(result.stdout.split("\n").filter((line) => line.includes(keyFile))).toEqual([
      `  LEDGER_EXPORT_KEY shown once: ${keyFile} (mode 0600). Store it apart from ADMIN_TOKEN, where the ledger exports' restores can reach it, then delete the file.`,
    ]);
  });

  it("a second run creates nothing, applies no migration and uploads no secret", async () => {
    expect((await runDeploy()).code).toBe(0);
    const before = readState();
    const firstCalls = calls().length;
    const second = await runDeploy();
    expect(second.code).toBe(0);
    expect(commands().slice(firstCalls)).toEqual([
      "--version",
      "whoami --json",
      "d1 list --json --env=",
      "r2 bucket list --env=",
      "d1 migrations apply DB --remote --env=",
      "secret list --format json --env=",
      "deploy --env=",
    ]);
    const after = readState();
    // Only the deploy count moves: the same code uploaded again.
    expect(after.workers["order-service"].deploys).toBe(2);
    after.workers["order-service"].deploys = 1;
    expect(after).toEqual(before);
    expect(second.stdout).toContain("D1 order-service: exists");
    expect(second.stdout).toContain("R2 order-exports: exists");
    expect(second.stdout).toContain("no migrations to apply");
    expect(second.stdout).toContain("ADMIN_TOKEN: set on the Worker");
    expect(second.stdout).not.toContain("shown once");
    expect(second.stdout + second.stderr).not.toContain(before.workers["order-service"].secrets.ADMIN_TOKEN);
  });

  it("--plan runs only read-only commands, changes nothing and says what each step would do", async () => {
    const before = readFileSync(statePath(), "utf8");
    const result = await runDeploy(["--plan"]);
    expect(result.code).toBe(0);
    expect(commands()).toEqual([
      "--version",
      "whoami --json",
      "d1 list --json --env=",
      "r2 bucket list --env=",
      "secret list --format json --env=",
    ]);
    expect(readFileSync(statePath(), "utf8")).toBe(before);
    expect(existsSync(join(dir, "secrets"))).toBe(false);
    expect(result.stdout).toContain("Plan for live (top level): nothing is changed.");
    expect(result.stdout).toContain("D1 order-service: would be created (wrangler d1 create order-service)");
    expect(result.stdout).toContain("R2 order-exports: would be created (wrangler r2 bucket create order-exports)");
    expect(result.stdout).toContain(`would apply all ${MIGRATIONS.length} migrations`);
    expect(result.stdout).toContain("ADMIN_TOKEN: would be generated");
    expect(result.stdout).toContain("would run: wrangler deploy");
    expect(result.stdout).toContain("Plan complete: nothing was changed.");
  });

  it("--plan after a deploy lists the pending migrations from the remote database", async () => {
    expect((await runDeploy()).code).toBe(0);
    const first = calls().length;
    const result = await runDeploy(["--plan"]);
    expect(result.code).toBe(0);
    expect(commands().slice(first)).toEqual([
      "--version",
      "whoami --json",
      "d1 list --json --env=",
      "r2 bucket list --env=",
      "d1 migrations list DB --remote --env=",
      "secret list --format json --env=",
    ]);
    expect(result.stdout).toContain("D1 order-service: no migrations to apply");
  });

  it("--env sandbox deploys the sandbox's own Worker, database and queues, beside live and touching none of it", async () => {
    expect((await runDeploy()).code).toBe(0);
    const live = readState();
    currentWorker = "order-service-sandbox";
    const first = calls().length;
    const result = await runDeploy(["--env", "sandbox"]);
    expect(result.stderr).toBe("");
    expect(result.code).toBe(0);
    expect(commands().slice(first)).toEqual([
      "--version",
      "whoami --json",
      "d1 list --json --env=sandbox",
      "d1 create order-service-sandbox --env=sandbox",
      "r2 bucket list --env=sandbox",
      "r2 bucket create order-exports-sandbox --env=sandbox",
      "d1 migrations apply DB --remote --env=sandbox",
      "secret list --format json --env=sandbox",
      "deploy --env=sandbox --secrets-file",
    ]);
    const state = readState();
    expect(state.databases.map((db) => db.name)).toEqual(["order-service", "order-service-sandbox"]);
    expect(state.buckets).toEqual(["order-exports", "order-exports-sandbox"]);
    expect(state.queues).toEqual([
      "order-webhooks",
      "order-webhooks-dlq",
      "order-webhooks-sandbox",
      "order-webhooks-sandbox-dlq",
    ]);
    expect(state.workers["order-service"]).toEqual(live.workers["order-service"]);
    expect(adminTokenOf("order-service-sandbox")).not.toBe(adminTokenOf("order-service"));
    expect(readFileSync(join(dir, "secrets", "order-service-sandbox.ADMIN_TOKEN"), "utf8").trim()).toBe(
      adminTokenOf("order-service-sandbox"),
    );
  });

  it("a failed step stops the rest with a message naming it, and the next run resumes with the same token", async () => {
    writeState({ failOn: "d1 migrations apply" });
    const failed = await runDeploy();
    expect(failed.code).toBe(1);
    expect(commands().at(-1)).toBe("d1 migrations apply DB --remote --env=");
    expect(commands().filter((command) => command.startsWith("deploy"))).toEqual([]);
    expect(failed.stderr).toContain(
      "Stopped at step 3/6 (D1 migrations): `wrangler d1 migrations apply DB --remote --env=` exited with 1",
    );
    expect(failed.stderr).toContain("Steps after it did not run.");
    expect(failed.stdout).not.toContain("[4/6]");

    // A deploy that fails after the token was generated: the next run uploads that same token.
    writeState({ failOn: "deploy", databases: readState().databases });
    expect((await runDeploy()).code).toBe(1);
    const generated = readFileSync(join(dir, "secrets", "order-service.ADMIN_TOKEN"), "utf8").trim();
    writeState({ databases: readState().databases });
    const resumed = await runDeploy();
    expect(resumed.code).toBe(0);
    expect(adminTokenOf("order-service")).toBe(generated);
    expect(resumed.stdout + resumed.stderr).not.toContain(generated);
  });

  it("removes the secrets file and stops wrangler when interrupted during wrangler deploy", async () => {
    writeState({ hangOn: "deploy" });
    let deployer;
    const finished = runDeploy([], {}, (child) => (deployer = child));
    let deployCall;
    for (let tries = 0; tries < 600 && deployCall === undefined; tries += 1) {
      await new Promise((r) => setTimeout(r, 25));
      deployCall = calls().find((call) => call.argv[0] === "deploy");
    }
    const secretsFile = deployCall.argv.at(-1);
    expect(existsSync(secretsFile)).toBe(true);
    deployer.kill("SIGTERM");
    const result = await finished;
    expect(result.code).toBe(143);
    expect(existsSync(secretsFile)).toBe(false);
    expect(result.stderr).toContain("Interrupted by SIGTERM during `wrangler deploy`: the secrets file was removed.");
    // The token stays for the resumed run, which uploads that same one.
    const generated = readFileSync(join(dir, "secrets", "order-service.ADMIN_TOKEN"), "utf8").trim();
    writeState({ databases: readState().databases });
    expect((await runDeploy()).code).toBe(0);
    expect(adminTokenOf("order-service")).toBe(generated);
  });

  it("refuses a token file another deploy left, rather than reusing it for a Worker without ADMIN_TOKEN", async () => {
    expect((await runDeploy()).code).toBe(0);
    const tokenFile = join(dir, "secrets", "order-service.ADMIN_TOKEN");
    const first = readFileSync(tokenFile, "utf8");
    // The same Worker name on another account, which has no ADMIN_TOKEN: the lingering file is not its token.
    writeState({
      accounts: [
        { id: "acc123", name: "Reseller Ops" },
        { id: "acc456", name: "Staging" },
      ],
    });
    const start = calls().length;
    const other = await runDeploy([], { CLOUDFLARE_ACCOUNT_ID: "acc456" });
    expect(other.code).toBe(1);
    expect(other.stderr).toContain(
      `Stopped at step 4/6 (secrets): ${tokenFile} holds an ADMIN_TOKEN made for account acc123's Worker order-service, and order-service has none`,
    );
    expect(
      commands()
        .slice(start)
        .some((command) => command.startsWith("deploy")),
    ).toBe(false);
    expect(readFileSync(tokenFile, "utf8")).toBe(first);
    expect(other.stdout + other.stderr).not.toContain(first.trim());

    // A token file without its note (an older run's) is refused too; once removed, a new token is made.
    rmSync(`${tokenFile}.json`);
    const unknown = await runDeploy([], { CLOUDFLARE_ACCOUNT_ID: "acc456" });
    expect(unknown.stderr).toContain(`${tokenFile} holds an ADMIN_TOKEN made for an earlier deploy`);
    rmSync(tokenFile);
    // The export key made for acc123's Worker is refused the same way; once removed, a new one is made too.
    const keyFile = join(dir, "secrets", "order-service.LEDGER_EXPORT_KEY");
    const refusedKey = await runDeploy([], { CLOUDFLARE_ACCOUNT_ID: "acc456" });
    expect(refusedKey.stderr).toContain(
      `${keyFile} holds a LEDGER_EXPORT_KEY made for account acc123's Worker order-service, and order-service has none`,
    );
    rmSync(keyFile);
    rmSync(`${keyFile}.json`);
    expect((await runDeploy([], { CLOUDFLARE_ACCOUNT_ID: "acc456" })).code).toBe(0);
    expect(readFileSync(tokenFile, "utf8")).not.toBe(first);
  });

  it("stops at the preflight when wrangler is not logged in, or the login has several accounts and none is chosen", async () => {
    writeState({ loggedIn: false });
    const out = await runDeploy();
    expect(out.code).toBe(1);
    expect(out.stderr).toContain(
      "Stopped at step 1/6 (preflight): wrangler is not logged in: run `npx wrangler login`",
    );
    expect(commands()).toEqual(["--version", "whoami --json"]);

    rmSync(logPath());
    writeState({
      accounts: [
        { id: "a1", name: "One" },
        { id: "a2", name: "Two" },
      ],
    });
    const several = await runDeploy();
    expect(several.code).toBe(1);
    expect(several.stderr).toContain("choose one with CLOUDFLARE_ACCOUNT_ID=<id>");
    expect(commands()).toEqual(["--version", "whoami --json"]);

    rmSync(logPath());
    const chosen = await runDeploy([], { CLOUDFLARE_ACCOUNT_ID: "a2" });
    expect(chosen.code).toBe(0);
    expect(
      calls()
        .slice(2)
        .every((call) => call.account === "a2"),
    ).toBe(true);
  });

  it("stops at the preflight when live is given a supplier's sandbox, or the sandbox a real upstream", async () => {
    const toml = readFileSync(join(root, "wrangler.toml"), "utf8");
    const liveMarked = join(dir, "live-marked.toml");
    writeFileSync(liveMarked, toml.replace('UPSTREAM_SANDBOX = "false"', 'UPSTREAM_SANDBOX = "true"'));
    const live = await runDeploy(["--config", liveMarked]);
    expect(live.code).toBe(1);
    expect(live.stderr).toContain(
      `Stopped at step 1/6 (preflight): live: live would sell a supplier's sandbox codes: UPSTREAM_SANDBOX is "true"`,
    );
    expect(commands()).toEqual(["--version", "whoami --json"]);

    rmSync(logPath());
    const sandboxReal = join(dir, "sandbox-real.toml");
    const sandboxVars = toml.indexOf("[env.sandbox.vars]");
    writeFileSync(
      sandboxReal,
      toml.slice(0, sandboxVars) +
        toml
          .slice(sandboxVars)
          .replace('UPSTREAM_BASE_URL = ""', 'UPSTREAM_BASE_URL = "https://api.supplier.example/"'),
    );
    const sandbox = await runDeploy(["--config", sandboxReal, "--env", "sandbox"]);
    expect(sandbox.code).toBe(1);
    expect(sandbox.stderr).toContain(
      `[env.sandbox]: the sandbox would buy real codes: UPSTREAM_BASE_URL is set but UPSTREAM_SANDBOX is not "true"`,
    );
    expect(commands()).toEqual(["--version", "whoami --json"]);
  });

  it("stops at the preflight when wrangler is not the pinned version", async () => {
    writeState({ version: "3.99.0" });
    const result = await runDeploy();
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(`the project pins ${pinnedWrangler}: run \`npm ci\``);
    expect(commands()).toEqual(["--version"]);
  });

  it("fails the post-deploy check when the deployed document is not the checked-in one", async () => {
    servedDocument = JSON.stringify({ ...JSON.parse(checkedInDocument), info: { title: "other", version: "0.0.0" } });
    const result = await runDeploy();
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(
      "Stopped at step 6/6 (post-deploy check): /openapi.json differs from schema/openapi.json",
    );
  });

  it("checks admin auth on a later run with the operator's ADMIN_TOKEN from the environment, and never prints it", async () => {
    expect((await runDeploy()).code).toBe(0);
    const token = adminTokenOf("order-service");
    rmSync(join(dir, "secrets"), { recursive: true });
    const withToken = await runDeploy([], { ADMIN_TOKEN: token });
    expect(withToken.code).toBe(0);
    expect(withToken.stdout).toContain("admin auth: refused without the token, accepted with it");
    expect(withToken.stdout + withToken.stderr).not.toContain(token);

    const wrong = await runDeploy([], { ADMIN_TOKEN: "adm_not-the-token-at-all" });
    expect(wrong.code).toBe(1);
    expect(wrong.stderr).toContain("/admin/clients did not answer as expected");
    expect(wrong.stderr).not.toContain("adm_not-the-token-at-all");
  });
});
