/**
 * API-key authentication: the bearer token, the isolate's caches of known and unknown keys, and the rate
 * limits. Which client a key belongs to is the clients' store to say (a KeyLookup, handed in by the
 * composition root, src/app.ts), so this module knows no table.
 */
import { io } from "../kernel/faults";
import { Refusal, fail, failure } from "../kernel/failures";
import { ERRORS, RefusalWithHeaders } from "./errors";
import { sha256Hex } from "../kernel/crypto";
import { forgetPrimaryMark } from "../kernel/replica-reads";
import { API_KEY_PREFIX, modeOfKey, serviceMode, type ServiceMode } from "../kernel/service-mode";
import { addressAllowed, allowListOf, scopesOf, type IpRange, type Scope } from "../kernel/key-access";

/** The client a request acts for, and what its key may do and from where (docs/api.md, Keys and scopes). */
export interface Client {
  id: string;
  keyHash: string;
  /** The key's scopes (every one for a key that holds `all`). */
  scopes: readonly Scope[];
  /** The key's IP allow-list, or null: any address. */
  allowList: readonly IpRange[] | null;
}

/**
 * The client whose live key has this SHA-256 (hex), with the key's scopes and allow-list as stored, or null
 * for an unknown or revoked key, and the time (`asOf`, this isolate's clock) at which the database was at
 * least as new as that answer; the answer is at most `maxAgeMs` old.
 */
export type KeyLookup = (
  db: D1Database,
  keyHash: string,
  maxAgeMs: number,
) => Promise<{ answer: { clientId: string; scopes: string; allowedIps: string | null } | null; asOf: number }>;

/** The client behind a request's API key, or a Refusal (403 unauthenticated, 429 rate_limited). */
export type Authenticate = (request: Request, env: Env) => Promise<Client>;

/** A seam for every I/O call authentication makes (src/kernel/faults.ts); names are data. */
export const AUTH_SEAMS = { keyLookup: "auth.key-lookup" } as const;

interface KnownKey {
  client: Client;
  until: number;
}

/**
 * API keys resolved in this isolate, good until API_KEY_CACHE_SECONDS after the moment the database was
 * known to say so (the lookup's `asOf`, not the time of the lookup): a revoked key, or a disabled client's,
 * stops working within API_KEY_CACHE_SECONDS of the change at the latest, in every isolate, however far a
 * read replica lags. Known keys cost no D1 query and no hashing on the hot path. Keyed by the
 * key itself, which lives only in this isolate's memory, as it does for the request that carried it.
 *
 * Known and unknown keys are held apart: anyone can send any number of made-up keys, so those go to a
 * cache of their own (`unknownKeys`), and nothing a stranger sends can push a real client's key out of
 * `knownKeys`. Both are bounded; when one is full its oldest entry goes (a Map iterates in insertion order).
 */
const knownKeys = new Map<string, KnownKey>();
const unknownKeys = new Map<string, number>();
const KNOWN_KEY_LIMIT = 10_000;
const UNKNOWN_KEY_LIMIT = 1_000;

/** Where a request came from, for limiting unknown keys. Locally (no Cloudflare edge) all share one bucket. */
export function clientAddress(request: Request): string {
  return request.headers.get("cf-connecting-ip") ?? "local";
}

function remember<V>(cache: Map<string, V>, limit: number, key: string, value: V): void {
  cache.delete(key);
  if (cache.size >= limit) cache.delete(cache.keys().next().value!);
  cache.set(key, value);
}

/** Forgets every key, and the isolate's view of the primary: after a revocation here, the next lookup reads the primary. */
export function forgetCachedKeys(): void {
  knownKeys.clear();
  unknownKeys.clear();
  forgetPrimaryMark();
}

export function bearerToken(request: Request): string | null {
  const header = request.headers.get("authorization");
  if (header === null) return null;
  // The scheme name is case-insensitive (RFC 9110); the token is not.
  const match = /^Bearer ([\x21-\x7e]{1,256})$/i.exec(header.trim());
  return match ? match[1]! : null;
}

const ENVIRONMENT_NAMES: Readonly<Record<ServiceMode, string>> = {
  sandbox: "the sandbox",
  live: "the live environment",
};

/** wrong_environment's message: the code's, then which environment the key is for and which keys this one takes. */
function wrongEnvironmentMessage(keyMode: ServiceMode, mode: ServiceMode): string {
  return `${ERRORS.wrong_environment.message}: ${API_KEY_PREFIX[keyMode]}… keys are for ${ENVIRONMENT_NAMES[keyMode]}; ${ENVIRONMENT_NAMES[mode]} takes ${API_KEY_PREFIX[mode]}… keys`;
}

/**
 * 403 wrong_environment when the key's prefix names the other environment. The prefix alone decides, with
 * no lookup: the other environment's D1 is not this one's, and the prefix is no secret.
 */
function checkEnvironment(key: string, env: Env): void {
  const keyMode = modeOfKey(key);
  const mode = serviceMode(env);
  if (keyMode === null || keyMode === mode) return;
  throw new Refusal(
    failure(
      "wrong_environment",
      { keyEnvironment: keyMode, environment: mode },
      wrongEnvironmentMessage(keyMode, mode),
    ),
  );
}

/**
 * 403 ip_not_allowed when the key has an allow-list and the request's CF-Connecting-IP is not in it. Fail
 * closed: a request without the header (which Cloudflare's edge always sets) is outside every list.
 */
function checkAddress(request: Request, client: Client): void {
  if (client.allowList === null) return;
  const address = request.headers.get("cf-connecting-ip");
  if (address === null || !addressAllowed(address, client.allowList))
    fail("ip_not_allowed", { address: address === null ? null : address.slice(0, 64) });
}

/** 403 insufficient_scope when the key lacks the scope the route needs (null: any key may call it). */
export function requireScope(client: Client, needed: Scope | null): void {
  if (needed !== null && !client.scopes.includes(needed))
    fail("insufficient_scope", { needed, scopes: [...client.scopes] });
}

export function rateLimited(): never {
  throw new RefusalWithHeaders(failure("rate_limited"), { "retry-after": "10" });
}

/**
 * The client behind the request's API key, or 403 for a missing, unknown or revoked key (unauthenticated),
 * a key of the other environment (wrong_environment, decided by its prefix before anything else) or a
 * request from outside the key's allow-list (ip_not_allowed). The route's scope is the router's to check
 * (requireScope).
 *
 * A key this isolate does not know yet costs a SHA-256 and a D1 query, so before either it is counted
 * against the sender's address (UNKNOWN_KEY_LIMITER, far below the per-key limit): a flood of made-up keys
 * gets 429 before D1 is read. A key already known to be unknown answers 403 from memory without counting.
 * A known key is cached after its first lookup and from then on is limited only by its own RATE_LIMITER;
 * only that first lookup (once per API_KEY_CACHE_SECONDS per isolate) shares its address's budget.
 */
export function apiKeyAuthentication(lookup: KeyLookup): Authenticate {
  return (request, env) => authenticate(request, env, lookup);
}

async function authenticate(request: Request, env: Env, lookup: KeyLookup): Promise<Client> {
  const key = bearerToken(request);
  if (key === null) fail("unauthenticated");
  checkEnvironment(key, env);
  const now = Date.now();
  const known = knownKeys.get(key);
  let client = known !== undefined && known.until > now ? known.client : null;
  if (client === null) {
    if ((unknownKeys.get(key) ?? 0) > now) fail("unauthenticated");
    const { success } = await env.UNKNOWN_KEY_LIMITER.limit({ key: clientAddress(request) });
    if (!success) rateLimited();
    const keyHash = await sha256Hex(key);
    const cacheMs = Number(env.API_KEY_CACHE_SECONDS) * 1000;
    // An answer at most half the cache time old, so a found key stays cached for at least the other half.
    const { answer: grant, asOf } = await io(AUTH_SEAMS.keyLookup, () => lookup(env.DB, keyHash, cacheMs / 2));
    if (grant === null) {
      remember(unknownKeys, UNKNOWN_KEY_LIMIT, key, now + cacheMs);
      fail("unauthenticated");
    }
    // The scopes and allow-list are read once, with the key, and cached with it: checking them costs no query.
    const { scopes } = scopesOf(grant.scopes);
    client = { id: grant.clientId, keyHash, scopes, allowList: allowListOf(grant.allowedIps) };
    remember(knownKeys, KNOWN_KEY_LIMIT, key, { client, until: asOf + cacheMs });
  }
  // Before the key's rate limit: a leaked key used from outside its list cannot spend the client's budget.
  checkAddress(request, client);
  const { success } = await env.RATE_LIMITER.limit({ key: client.keyHash });
  if (!success) rateLimited();
  return client;
}
