/**
 * GET /health, for uptime checks and the deploy's post-deploy check: no authentication and nothing about
 * the internals in the answer. 200 when D1 answers a query and a Durable Object answers a call, 503
 * otherwise; which of them failed, and why, goes to the log (docs/operations.md), not to the caller.
 * A page beside the API, not in /openapi.json: it is for monitors, not for clients.
 */
import type { IRequest } from "itty-router";
import type { Page, RequestContext } from "./http/route";
import { jsonResponse } from "./http/responses";
import { io } from "./kernel/faults";
import { log } from "./kernel/log";

/** The two probes, as fault seams (src/kernel/faults.ts) so that a test can make either fail. */
export const HEALTH_SEAMS = { database: "health.d1", object: "health.object" } as const;

/** A probe slower than this counts as not answering: a monitor wants an answer, not a hung request. */
const PROBE_TIMEOUT_MS = 3000;

/** The wallet object that answers the probe: a name no client's wallet can have (those are `client:CUR`). */
const PROBE_OBJECT = "health-probe";

function withTimeout<T>(call: Promise<T>): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | null = null;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${PROBE_TIMEOUT_MS} ms`)), PROBE_TIMEOUT_MS);
  });
  return Promise.race([call, timeout]).finally(() => {
    if (timer !== null) clearTimeout(timer);
  });
}

async function probe(name: string, seam: string, call: () => Promise<unknown>): Promise<boolean> {
  try {
    await withTimeout(io(seam, call));
    return true;
  } catch (error) {
    log("error", "health check failed", {
      component: "health",
      probe: name,
      error: error instanceof Error ? error.message : String(error),
    });
    return false;
  }
}

export async function getHealth(_request: IRequest, { env }: RequestContext): Promise<Response> {
  const [database, object] = await Promise.all([
    probe("d1", HEALTH_SEAMS.database, () => env.DB.prepare("SELECT 1").first()),
    probe("durable_object", HEALTH_SEAMS.object, () => env.WALLETS.get(env.WALLETS.idFromName(PROBE_OBJECT)).ping()),
  ]);
  const headers = { "cache-control": "no-store" };
  return database && object
    ? jsonResponse({ message: "OK", data: { status: "ok" } }, 200, headers)
    : jsonResponse({ message: "Service unavailable", code: "service_unavailable" }, 503, {
        ...headers,
        "retry-after": "5",
      });
}

export const healthPages: readonly Page[] = [
  {
    method: "GET",
    path: "/health",
    handler: getHealth,
    summary: "200 when D1 and a Durable Object answer, 503 otherwise; no authentication",
  },
];
