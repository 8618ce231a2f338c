/**
 * Every wallet object the service opens while a test runs, with the location hint it was opened with.
 * Local workerd ignores location hints, so tests watch the namespace's `get` itself: the order objects and
 * the tests share this isolate, so a wrapper on it sees every wallet object the service opens, from the
 * operator's routes, the client's routes and the order objects alike.
 */
import { env } from "cloudflare:workers";
import { afterEach, beforeEach } from "vitest";
import { walletName } from "../../src/wallets/ledger";

interface Opened {
  id: string;
  locationHint: string | undefined;
}

const namespace = Object.getPrototypeOf(env.WALLETS) as {
  get: (id: DurableObjectId, options?: DurableObjectNamespaceGetDurableObjectOptions) => unknown;
};
const originalGet = namespace.get;

/** Watches the openings of the tests of the calling file, each test from none. */
export function watchWalletOpenings() {
  const opened: Opened[] = [];
  beforeEach(() => {
    opened.length = 0;
    namespace.get = function (
      this: unknown,
      id: DurableObjectId,
      options?: DurableObjectNamespaceGetDurableObjectOptions,
    ) {
      opened.push({ id: id.toString(), locationHint: options?.locationHint });
      return originalGet.call(this, id, options);
    };
  });
  afterEach(() => {
    namespace.get = originalGet;
  });
  return {
    /** Forgets the openings so far. */
    clear(): void {
      opened.length = 0;
    },
    /** The hints a wallet object was opened with, one per opening (its generation and region: walletName). */
    hintsOf(clientId: string, currency: string, generation = 0, region: string | null = null) {
      const id = env.WALLETS.idFromName(walletName(clientId, currency, generation, region)).toString();
      return opened.filter((call) => call.id === id).map((call) => call.locationHint);
    },
  };
}
