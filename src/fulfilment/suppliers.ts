import type { SupplierKind } from "../catalogue/catalogue-schemas";
import { serviceMode, supplierRefusal } from "../kernel/service-mode";
import { inventorySupplier } from "./inventory-supplier";
import { withScriptedOutcomes } from "./sandbox-outcome";
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

/**
 * The supplier of each kind, as the catalogue names them per SKU. In the sandbox, a line whose outcome
 * the create's Sandbox-Outcome header scripted is answered by its script (src/fulfilment/sandbox-outcome.ts);
 * in live no line is ever scripted. A supplier that may not serve this environment (supplierRefusal, src/kernel/service-mode.ts) fails
 * its lines without being asked: nothing was issued.
 */
export function supplierFor(kind: SupplierKind, env: Env): Supplier {
  const refusal = supplierRefusal(kind, env);
  if (refusal !== null) return { issue: async () => ({ kind: "failed", reason: refusal }) };
  const supplier = supplierOfKind(kind, env);
  return serviceMode(env) === "sandbox" ? withScriptedOutcomes(supplier, kind) : supplier;
}

function supplierOfKind(kind: SupplierKind, env: Env): Supplier {
  switch (kind) {
    case "inventory":
      return inventorySupplier(env.DB);
    case "sandbox":
      return sandboxSupplier;
    case "upstream":
      return upstreamSupplier({
        baseUrl: env.UPSTREAM_BASE_URL,
        apiKey: env.UPSTREAM_API_KEY ?? "",
        timeoutMs: Number(env.UPSTREAM_TIMEOUT_MS),
      });
  }
}
