import { readNearestThenPrimary } from "../kernel/replica-reads";
import { loadCatalogueSnapshot, rateKey, type CatalogueSnapshot } from "./catalogue-store";

interface Cached {
  context: CatalogueSnapshot;
  until: number;
}

/**
 * The create-time reads of D1, reused by this isolate for CATALOGUE_CACHE_SECONDS. A cached context is
 * used only when it has everything the request names (every SKU, the wallet, a rate for each foreign
 * currency); otherwise D1 is read again, so a SKU, wallet or rate added a moment ago is seen at once.
 * A change or removal (a new rate, a disabled SKU, a deal) shows within the staleness; orders freeze what
 * they were priced with either way. Operator writes through this isolate clear it at once.
 */
const contexts = new Map<string, Cached>();
const CACHE_LIMIT = 1_000;

export function forgetCatalogueCache(): void {
  contexts.clear();
}

function covers(context: CatalogueSnapshot, skus: string[], wallet: string): boolean {
  if (!context.walletCurrencies.has(wallet)) return false;
  for (const sku of skus) {
    const product = context.products.get(sku);
    if (product === undefined || !product.active) return false;
    if (product.currency !== wallet && !context.rates.has(rateKey(wallet, product.currency))) return false;
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
  const hit = contexts.get(key);
  if (hit !== undefined && hit.until > now && covers(hit.context, skus, wallet)) return hit.context;
  // A replica near this Worker may answer; what it lacks (a SKU, wallet or rate added a moment ago) is
  // read from the primary, so additions still show at once.
  const context = await readNearestThenPrimary(env.DB, (db) => loadCatalogueSnapshot(db, clientId, skus, wallet), (read) => covers(read, skus, wallet));
  if (ttlMs > 0) {
    if (contexts.size >= CACHE_LIMIT) contexts.clear();
    contexts.set(key, { context, until: now + ttlMs });
  }
  return context;
}
