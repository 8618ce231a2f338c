import { applyD1Migrations } from "cloudflare:test";
import { env } from "cloudflare:workers";

// Storage is isolated per test file; each file starts from a migrated, empty database.
await applyD1Migrations(env.DB, env.TEST_MIGRATIONS);
