/**
 * A client and its keys as the operator routes answer them (src/clients/client-admin-routes.ts), and as
 * the routes' examples are derived (client-examples.ts): one shape for both.
 */
import { toAmountNumber } from "../pricing/money";
import { ALL_SCOPES } from "../kernel/key-access";
import type { WalletMove } from "../wallets/wallet-moves";
import { regionOf } from "../wallets/wallet-registry-store";
import type { ClientRow, KeyRow } from "./client-store";
import { keyIdOf } from "./client-secrets";
import { accessOf, type KeyAccess } from "./key-access-rules";

export function clientView(row: ClientRow) {
  return {
    id: row.id,
    name: row.name,
    createdAt: row.created_at,
    disabledAt: row.disabled_at,
    region: regionOf(row.region),
  };
}

/** A key's access as answered: the lists copied as the plain arrays its schema declares. */
function accessView({ scopes, allowedIps }: KeyAccess) {
  return {
    scopes: scopes === ALL_SCOPES ? scopes : [...scopes],
    allowedIps: allowedIps === null ? null : [...allowedIps],
  };
}

export function keyView(row: KeyRow) {
  return {
    keyId: keyIdOf(row.key_hash),
    label: row.label,
    createdAt: row.created_at,
    revokedAt: row.revoked_at,
    ...accessView(accessOf(row)),
  };
}

/** A new key as answered: its id, label and access, not revoked. */
export function issuedView(key: { keyId: string; label: string; createdAt: number; access: KeyAccess }) {
  return { keyId: key.keyId, label: key.label, createdAt: key.createdAt, revokedAt: null, ...accessView(key.access) };
}

/** A wallet moved to the client's region. */
export function moveView(move: WalletMove) {
  return { currency: move.currency, from: move.from, to: move.to, amount: toAmountNumber(move.amount) };
}
