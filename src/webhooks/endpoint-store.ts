/**
 * A client's account webhook endpoints in D1 (`webhook_endpoints`, schema/migrations/0071_webhook_endpoints.sql).
 * Every statement names the client: another client's endpoint is not found, as an unknown one is. Only
 * this module writes the table.
 */
import type { EventType } from "./events";

/** An endpoint as stored: its secrets are for signing and never shown again after create or rotate. */
export interface StoredEndpoint {
  id: string;
  clientId: string;
  url: string;
  eventTypes: EventType[];
  secret: string;
  previousSecret: string | null;
  rotatedAt: number | null;
  createdAt: number;
  updatedAt: number;
}

/** The most endpoints a client has. */
export const MAX_ENDPOINTS = 10;

interface EndpointRow {
  id: string;
  client_id: string;
  url: string;
  event_types: string;
  secret: string;
  previous_secret: string | null;
  rotated_at: number | null;
  created_at: number;
  updated_at: number;
}

function endpointOf(row: EndpointRow): StoredEndpoint {
  return {
    id: row.id,
    clientId: row.client_id,
    url: row.url,
    eventTypes: JSON.parse(row.event_types) as EventType[],
    secret: row.secret,
    previousSecret: row.previous_secret,
    rotatedAt: row.rotated_at,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

/**
 * Stores a new endpoint unless the client has MAX_ENDPOINTS already (counted in the same statement, so
 * two creates at once cannot both pass the last place); false when it had.
 */
export async function insertEndpoint(db: D1Database, endpoint: StoredEndpoint): Promise<boolean> {
  const result = await db
    .prepare(
      `INSERT INTO webhook_endpoints (id, client_id, url, event_types, secret, previous_secret, rotated_at, created_at, updated_at)
       SELECT ?1, ?2, ?3, ?4, ?5, NULL, NULL, ?6, ?6
       WHERE (SELECT count(*) FROM webhook_endpoints WHERE client_id = ?2) < ?7`,
    )
    .bind(
      endpoint.id,
      endpoint.clientId,
      endpoint.url,
      JSON.stringify(endpoint.eventTypes),
      endpoint.secret,
      endpoint.createdAt,
      MAX_ENDPOINTS,
    )
    .run();
  return (result.meta.changes ?? 0) > 0;
}

/** The client's endpoints, oldest first. */
export async function endpointsOf(db: D1Database, clientId: string): Promise<StoredEndpoint[]> {
  const { results } = await db
    .prepare(`SELECT * FROM webhook_endpoints WHERE client_id = ?1 ORDER BY created_at, id`)
    .bind(clientId)
    .all<EndpointRow>();
  return results.map(endpointOf);
}

/** The client's endpoint, or null (unknown, or another client's). */
export async function endpointOfClient(db: D1Database, clientId: string, id: string): Promise<StoredEndpoint | null> {
  const row = await db
    .prepare(`SELECT * FROM webhook_endpoints WHERE client_id = ?1 AND id = ?2`)
    .bind(clientId, id)
    .first<EndpointRow>();
  return row === null ? null : endpointOf(row);
}

/** The endpoints named, by id, whoever's they are (the consumer checks each message's client against them). */
export async function endpointsByIds(db: D1Database, ids: readonly string[]): Promise<Map<string, StoredEndpoint>> {
  const found = new Map<string, StoredEndpoint>();
  const unique = [...new Set(ids)];
  if (unique.length === 0) return found;
  const marks = unique.map((_, index) => `?${index + 1}`).join(", ");
  const { results } = await db
    .prepare(`SELECT * FROM webhook_endpoints WHERE id IN (${marks})`)
    .bind(...unique)
    .all<EndpointRow>();
  for (const row of results) found.set(row.id, endpointOf(row));
  return found;
}

/** Changes the url and event types of the client's endpoint; false when it has no such endpoint. */
export async function updateEndpoint(
  db: D1Database,
  clientId: string,
  id: string,
  change: { url: string; eventTypes: EventType[] },
  now: number,
): Promise<boolean> {
  const result = await db
    .prepare(
      `UPDATE webhook_endpoints SET url = ?3, event_types = ?4, updated_at = ?5 WHERE client_id = ?1 AND id = ?2`,
    )
    .bind(clientId, id, change.url, JSON.stringify(change.eventTypes), now)
    .run();
  return (result.meta.changes ?? 0) > 0;
}

/** Replaces the secret, keeping the one it replaces as the previous one; false when there is no such endpoint. */
export async function rotateEndpointSecret(
  db: D1Database,
  clientId: string,
  id: string,
  secret: string,
  now: number,
): Promise<boolean> {
  const result = await db
    .prepare(
      `UPDATE webhook_endpoints SET previous_secret = secret, secret = ?3, rotated_at = ?4, updated_at = ?4
       WHERE client_id = ?1 AND id = ?2`,
    )
    .bind(clientId, id, secret, now)
    .run();
  return (result.meta.changes ?? 0) > 0;
}

/** Deletes the client's endpoint; false when it had none such. */
export async function deleteEndpoint(db: D1Database, clientId: string, id: string): Promise<boolean> {
  const result = await db
    .prepare(`DELETE FROM webhook_endpoints WHERE client_id = ?1 AND id = ?2`)
    .bind(clientId, id)
    .run();
  return (result.meta.changes ?? 0) > 0;
}
