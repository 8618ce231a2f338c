import type { IRequest } from "itty-router";
import type { z } from "zod";
import { requireAdmin } from "./admin-auth";
import { bearerToken, sha256Hex } from "./auth";
import { issuesOf, readJson } from "./body";
import { fail } from "./errors";
import type { RequestContext } from "./route";

/** Who did an operator action: a label of the admin token (never the token) and the request it came in. */
export interface Actor {
  label: string;
  requestId: string;
}

/**
 * `Authorization: Bearer <ADMIN_TOKEN>` or 403 (constant-time compare in requireAdmin). The label is
 * "admin:" and the first 8 hex digits of the token's SHA-256: it tells tokens apart across a rotation of
 * ADMIN_TOKEN without saying anything usable about the token.
 */
export async function adminActor(request: IRequest, { env, requestId }: RequestContext): Promise<Actor> {
  requireAdmin(request, env);
  const token = bearerToken(request)!;
  return { label: `admin:${(await sha256Hex(token)).slice(0, 8)}`, requestId };
}

/** The audit row of an action, to run in the same D1 batch as the change it records. */
export function auditStatement(db: D1Database, actor: Actor, action: string, target: string, details: unknown): D1PreparedStatement {
  return db
    .prepare(`INSERT INTO audit_log (at, actor, action, target, request_id, details) VALUES (?1, ?2, ?3, ?4, ?5, ?6)`)
    .bind(Date.now(), actor.label, action, target, actor.requestId, JSON.stringify(details ?? {}));
}

export async function audit(db: D1Database, actor: Actor, action: string, target: string, details: unknown): Promise<void> {
  await auditStatement(db, actor, action, target, details).run();
}

function decoded(params: Record<string, string> | undefined): Record<string, string> | null {
  const out: Record<string, string> = {};
  try {
    for (const [name, value] of Object.entries(params ?? {})) out[name] = decodeURIComponent(value);
  } catch {
    return null;
  }
  return out;
}

/** Path parameters (percent-decoded) checked by `schema`; anything else is 400 invalid_parameters. */
export function parseParams<T extends z.ZodType>(schema: T, request: IRequest): z.output<T> {
  const params = decoded(request.params);
  if (params === null) fail("invalid_parameters", { reason: "path is not valid percent-encoding" });
  const parsed = schema.safeParse(params);
  if (!parsed.success) fail("invalid_parameters", issuesOf(parsed.error));
  return parsed.data;
}

/** Query parameters checked by `schema`; a repeated parameter arrives as an array and fails the check. */
export function parseQuery<T extends z.ZodType>(schema: T, request: IRequest): z.output<T> {
  const parsed = schema.safeParse({ ...request.query });
  if (!parsed.success) fail("invalid_parameters", issuesOf(parsed.error));
  return parsed.data;
}

/** A JSON body of at most MAX_BODY_BYTES (or `maxBytes`) checked by `schema`; 400 invalid_request_body. */
export async function parseBody<T extends z.ZodType>(schema: T, request: IRequest, env: Env, maxBytes = Number(env.MAX_BODY_BYTES)): Promise<z.output<T>> {
  const parsed = schema.safeParse(await readJson(request, maxBytes));
  if (!parsed.success) fail("invalid_request_body", issuesOf(parsed.error));
  return parsed.data;
}

