/**
 * What an operator may give a client's key (docs/operator-api.md, Scoped keys): its scopes (`all`, or one or
 * more of SCOPES) and its IP allow-list (null, or one to MAX_ALLOWED_IPS addresses and CIDR ranges, each
 * once). Pure: the operator API's schema and the console read a request through these, the store keeps
 * what `storedAccess` makes, and authentication reads it back with src/kernel/key-access.ts.
 */
import { ALL_SCOPES, MAX_ALLOWED_IPS, parseRange, scopesOf, storedScopes, type Scope } from "../kernel/key-access";

/** A key's access as the operator API gives and shows it. */
export interface KeyAccess {
  scopes: typeof ALL_SCOPES | readonly Scope[];
  allowedIps: readonly string[] | null;
}

/** What a key issued without naming its access gets: every scope, from anywhere (as every key before scopes). */
export const FULL_ACCESS: KeyAccess = { scopes: ALL_SCOPES, allowedIps: null };

/** An allow-list entry as stored and shown: trimmed, hexadecimal in lower case. */
export function normalEntry(entry: string): string {
  return entry.trim().toLowerCase();
}

/**
 * Why an allow-list cannot be a key's, or null: too many entries, one that is not an address or CIDR range
 * (`index` names it), or one given twice. An empty list is refused: null is how a key has none.
 */
export function allowListProblem(entries: readonly string[]): { index?: number; reason: string } | null {
  if (entries.length === 0) return { reason: "an allow-list has at least one entry: null for none" };
  if (entries.length > MAX_ALLOWED_IPS) return { reason: `at most ${MAX_ALLOWED_IPS} entries` };
  const seen = new Set<string>();
  for (const [index, entry] of entries.entries()) {
    const normal = normalEntry(entry);
    const range = parseRange(normal);
    if (typeof range === "string") return { index, reason: `${JSON.stringify(entry.slice(0, 64))}: ${range}` };
    if (seen.has(normal)) return { index, reason: `${JSON.stringify(normal)} is listed twice` };
    seen.add(normal);
  }
  return null;
}

/** Why a list of scopes cannot be a key's, or null: none, or one named twice (names are the schema's to check). */
export function scopesProblem(scopes: readonly Scope[]): string | null {
  if (scopes.length === 0) return "a key holds at least one scope (or all)";
  if (new Set(scopes).size !== scopes.length) return "a scope is named twice";
  return null;
}

/** The columns api_keys keeps a key's access in: `scopes` and `allowed_ips` (src/clients/client-store.ts). */
export function storedAccess(access: KeyAccess): { scopes: string; allowedIps: string | null } {
  return {
    scopes: storedScopes(access.scopes === ALL_SCOPES ? null : access.scopes),
    allowedIps: access.allowedIps === null ? null : JSON.stringify(access.allowedIps.map(normalEntry)),
  };
}

/** A key's access as the operator API shows it, from its stored columns. */
export function accessOf(row: { scopes: string; allowed_ips: string | null }): KeyAccess {
  const { all, scopes } = scopesOf(row.scopes);
  let allowedIps: string[] | null = null;
  if (row.allowed_ips !== null) {
    const parsed: unknown = JSON.parse(row.allowed_ips);
    allowedIps = Array.isArray(parsed) ? parsed.filter((entry): entry is string => typeof entry === "string") : [];
  }
  return { scopes: all ? ALL_SCOPES : scopes, allowedIps };
}
