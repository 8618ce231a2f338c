import { applyD1Migrations } from "cloudflare:test";
import { env } from "cloudflare:workers";

// Storage is isolated per test file; each file starts from a migrated, empty database.
await applyD1Migrations(env.DB, env.TEST_MIGRATIONS);

// Nothing the service does in a test may leave this machine: the order objects, the queue consumer and
// the tests share this isolate, so any fetch to a host other than loopback fails here, before a
// connection is tried. Tests that play a supplier or a webhook receiver stub fetch on top of this.
const loopbackOnly = globalThis.fetch;
globalThis.fetch = (async (input: RequestInfo | URL, init?: RequestInit) => {
  const url = new URL(input instanceof Request ? input.url : String(input));
  if (!["127.0.0.1", "localhost", "[::1]"].includes(url.hostname)) {
    throw new TypeError(`test guard: refused to fetch ${url.origin}; tests only reach loopback`);
  }
  return loopbackOnly(input, init);
}) as typeof fetch;
