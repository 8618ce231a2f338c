import type { SupplierKind } from "../catalogue/schemas";
import { inventorySupplier } from "./inventory-supplier";
import { sandboxSupplier } from "./sandbox-supplier";
import type { Supplier } from "./supplier";
import { upstreamSupplier } from "./upstream-supplier";

declare global {
  interface Env {
    /**
     * A secret only a deployment with an upstream supplier (UPSTREAM_BASE_URL) has: wrangler.toml does not
     * require it, so `wrangler types` does not declare it (npm run deploy asks for it when it is needed).
     */
    UPSTREAM_API_KEY?: string;
  }
}

/** The supplier of each kind, as the catalogue names them per SKU. */
export function supplierFor(kind: SupplierKind, env: Env): Supplier {
  switch (kind) {
    case "inventory":
      return inventorySupplier(env.DB);
    case "sandbox":
      return sandboxSupplier;
    case "upstream":
      return upstreamSupplier({ baseUrl: env.UPSTREAM_BASE_URL, apiKey: env.UPSTREAM_API_KEY ?? "", timeoutMs: Number(env.UPSTREAM_TIMEOUT_MS) });
  }
}
