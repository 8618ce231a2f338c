import { cloudflareTest, readD1Migrations } from "@cloudflare/vitest-plugin";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";

const migrations = await readD1Migrations(fileURLToPath(new URL("./schema/migrations", import.meta.url)));
const demoSeed = readFileSync(new URL("./schema/seed/demo.sql", import.meta.url), "utf8");

// The suites run in sandbox mode, as `npm start` does (sk_test_ keys, the /sandbox/* helpers); the live
// project below runs the same Worker in live mode.
const bindings = {
  SERVICE_MODE: "sandbox",
  TEST_MIGRATIONS: migrations,
  TEST_DEMO_SEED: demoSeed,
  ADMIN_TOKEN: "test-admin-token",
  // Signs the wallets' ledger exports: a secret of its own, not derived from ADMIN_TOKEN.
  LEDGER_EXPORT_KEY: "test-ledger-export-key",
  UPSTREAM_API_KEY: "test-upstream-key",
  // Loopback only: tests stub fetch, and a request the stub misses meets a closed port.
  UPSTREAM_BASE_URL: "http://127.0.0.1:9/supplier",
  // The stand-in supplier of the tests is a supplier's sandbox: the only upstream the sandbox may use.
  UPSTREAM_SANDBOX: "true",
  UPSTREAM_TIMEOUT_MS: "200",
  // Small, so that a test reaches it by backdating a line a minute (test/orders/unknown-outcome.test.ts).
  UPSTREAM_UNKNOWN_BUDGET_SECONDS: "60",
  // Webhook receivers in tests listen on 127.0.0.1 (stubbed fetch), which only this allows.
  ALLOW_INSECURE_WEBHOOKS: "true",
  // Tests change the catalogue in D1 directly and expect the next order to see it; the cache
  // itself is tested with its own settings (test/catalogue).
  CATALOGUE_CACHE_SECONDS: "0",
  // The reconciliation's storm test (test/reconciliation/storm.test.ts): 30 s in npm test, 10 minutes in
  // npm run bench:storm.
  STORM_SECONDS: process.env.STORM_SECONDS ?? "30",
};

const shared = { setupFiles: ["./test/setup.ts"], testTimeout: 30_000 };

/**
 * Vitest 4's teardown race (vitest-dev/vitest#11153): a Durable Object alarm still running when a test file's
 * environment closes makes the closing RPC reject with EnvironmentTeardownError, after every test of the
 * file has passed. That error alone is dropped; any other unhandled error still fails the run. Test files
 * that leave timers behind drain them (drainTimers) so that this stays the exception.
 */
function onUnhandledError(error: Error & { type?: string }): boolean | void {
  if (error.name === "EnvironmentTeardownError" && /Closing rpc while/.test(error.message)) return false;
}

export default defineConfig({
  test: {
    onUnhandledError,
    projects: [
      {
        plugins: [cloudflareTest({ wrangler: { configPath: "./wrangler.toml" }, miniflare: { bindings } })],
        test: {
          name: "service",
          include: ["test/**/*.test.ts"],
          exclude: ["test/rate-limit/**", "test/live/**"],
          ...shared,
        },
      },
      {
        // The same Worker with a rate limit a test can reach: 5 requests per 10 s per key.
        plugins: [
          cloudflareTest({
            wrangler: { configPath: "./wrangler.toml" },
            miniflare: {
              bindings,
              ratelimits: { RATE_LIMITER: { namespace_id: "1001", simple: { limit: 5, period: 10 } } },
            },
          }),
        ],
        test: { name: "rate-limit", include: ["test/rate-limit/**/*.test.ts"], ...shared },
      },
      {
        // `npm run deploy` against a stand-in for wrangler and for the deployed Worker: Node, not workerd.
        test: { name: "deploy", include: ["test/deploy/**/*.test.mjs"], environment: "node", testTimeout: 60_000 },
      },
      {
        // The same Worker in live mode: sk_live_ keys, no sandbox helpers (docs/sandbox.md).
        plugins: [
          cloudflareTest({
            wrangler: { configPath: "./wrangler.toml" },
            miniflare: { bindings: { ...bindings, SERVICE_MODE: "live", UPSTREAM_SANDBOX: "false" } },
          }),
        ],
        test: { name: "live", include: ["test/live/**/*.test.ts"], ...shared },
      },
    ],
  },
});
