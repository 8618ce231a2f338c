/**
 * What this isolate read of each client's account webhook endpoints, for at most 30 s (endpoint-fanout.ts
 * reads through it): a client's events cost one D1 read per 30 s per isolate, not one per event. The
 * client's routes forget a client's entry when they change its endpoints here.
 */
import { endpointsOf, type StoredEndpoint } from "./endpoint-store";

const CACHE_MS = 30_000;
const CACHE_BOUND = 10_000;
const cache = new Map<string, { at: number; endpoints: Pick<StoredEndpoint, "id" | "url" | "eventTypes">[] }>();

/** Forgets what this isolate read of the client's endpoints (after a change made here). */
export function forgetEndpoints(clientId: string): void {
  cache.delete(clientId);
}

/** The client's endpoints (id, url, types), read at most every 30 s per isolate. */
export async function subscribers(db: D1Database, clientId: string, now: number) {
  const cached = cache.get(clientId);
  if (cached !== undefined && now - cached.at < CACHE_MS) return cached.endpoints;
  const endpoints = (await endpointsOf(db, clientId)).map(({ id, url, eventTypes }) => ({ id, url, eventTypes }));
  if (cache.size >= CACHE_BOUND) cache.clear();
  cache.set(clientId, { at: now, endpoints });
  return endpoints;
}
