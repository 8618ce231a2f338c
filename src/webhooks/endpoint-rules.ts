/** Account webhook endpoints, pure: what a client is shown of one. */
import type { StoredEndpoint } from "./endpoint-store";

/** The endpoint as its client sees it: never a secret (one is shown only when made or rotated). */
export function endpointView(endpoint: StoredEndpoint) {
  return {
    id: endpoint.id,
    url: endpoint.url,
    eventTypes: endpoint.eventTypes,
    createdAt: endpoint.createdAt,
    updatedAt: endpoint.updatedAt,
    secretRotatedAt: endpoint.rotatedAt,
  };
}

/** The types given, each once, in the order of the list of types. */
export function typesOnce<T extends string>(types: readonly T[], all: readonly T[]): T[] {
  const given = new Set(types);
  return all.filter((type) => given.has(type));
}
