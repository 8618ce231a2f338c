/**
 * How a Durable Object versions its storage, the one shape for the order and the wallet: an ordered list
 * of migrations, each with its version and what it changes; the last one's version is the current one.
 * Storage at an older version passes through each newer migration once, in order. What a migration
 * changes is its object's business: the wallet's run SQL on its tables (src/wallets/wallet-store.ts),
 * the order's rewrite its key-value document (src/orders/order-store.ts).
 */

export interface Migration<Up> {
  version: number;
  description: string;
  up: Up;
}

/** The version storage is at once every migration of the list has run. */
export function currentVersion(migrations: readonly Migration<unknown>[]): number {
  return migrations[migrations.length - 1]?.version ?? 0;
}

const NONE: readonly never[] = [];

/**
 * The migrations that take storage at `stored` to the current version, in order. A list that skips a
 * version cannot do that, and is refused rather than have storage read as current when it is not.
 */
export function migrationsAfter<M extends Migration<unknown>>(migrations: readonly M[], stored: number): readonly M[] {
  // Storage at the current version, as it nearly always is, is read with no list built.
  if (stored >= currentVersion(migrations)) return NONE;
  const pending = migrations.filter((migration) => migration.version > stored);
  pending.forEach((migration, index) => {
    const from = index === 0 ? stored : pending[index - 1]!.version;
    if (migration.version !== from + 1) throw new Error(`storage of version ${from} has no migration to ${from + 1}`);
  });
  return pending;
}
