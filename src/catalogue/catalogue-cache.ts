import { readNearestThenPrimary } from "../kernel/replica-reads";
import { loadCatalogueSnapshot, rateKey, type CatalogueSnapshot } from "./catalogue-store";

interface Cached {
  snapshot: CatalogueSnapshot;
  until: number;
}

/**
 * The create-time reads of D1, reused by this isolate for CATALOGUE_CACHE_SECONDS. A cached snapshot is
 * used only when it has everything the request names (every SKU, the wallet, a rate for each foreign
 * currency); otherwise D1 is read again, so a SKU, wallet or rate added a moment ago is seen at once.
 * A change or removal (a new rate, a disabled SKU, a deal) shows within the staleness; orders freeze what
 * they were priced with either way. Operator writes through this isolate clear it at once.
 */
const snapshots = new Map<string, Cached>();
const CACHE_LIMIT = 1_000;

export function forgetCatalogueCache(): void {
  snapshots.clear();
}

function covers(snapshot: CatalogueSnapshot, skus: string[], wallet: string): boolean {
  if (!snapshot.walletCurrencies.has(wallet)) return false;
  for (const sku of skus) {
    const product = snapshot.products.get(sku);
    if (product === undefined || !product.active) return false;
    if (product.currency !== wallet && !snapshot.rates.has(rateKey(wallet, product.currency))) return false;
  }
  return true;
}

export async function catalogueSnapshot(
  env: Pick<Env, "DB" | "CATALOGUE_CACHE_SECONDS">,
  clientId: string,
  skus: string[],
  wallet: string,
): Promise<CatalogueSnapshot> {
  const ttlMs = Number(env.CATALOGUE_CACHE_SECONDS) * 1000;
  const key = JSON.stringify([clientId, wallet, [...skus].sort()]);
  const now = Date.now();
  const hit = snapshots.get(key);
  if (hit !== undefined && hit.until > now && covers(hit.snapshot, skus, wallet)) return hit.snapshot;
  // A replica near this Worker may answer; what it lacks (a SKU, wallet or rate added a moment ago) is
  // read from the primary, so additions still show at once.
  const snapshot = await readNearestThenPrimary(
    env.DB,
    (db) => loadCatalogueSnapshot(db, clientId, skus, wallet),
    (read) => covers(read, skus, wallet),
  );
  if (ttlMs > 0) {
    if (snapshots.size >= CACHE_LIMIT) snapshots.clear();
    snapshots.set(key, { snapshot, until: now + ttlMs });
  }
  return snapshot;
}
