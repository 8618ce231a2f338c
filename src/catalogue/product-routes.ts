import { route, type Route } from "../http/route";
import { supplierRefusal } from "../kernel/service-mode";
import { clientCatalogue, dealFromRow, productFromRow } from "./catalogue-store";
import { clientProductView } from "./catalogue-views";

// Only GET /openapi.json reads the answer's schema and the example: they load with the document.
const views = () => import("./product-schemas");
const examples = async () => (await import("./catalogue-examples")).catalogueExamples;

/**
 * GET /products: every active SKU the calling client can order, with its quotes or range, what can be
 * delivered now and the client's deal on it. One D1 batch (one round trip). Sorted by SKU; not paginated
 * (a catalogue is hundreds of SKUs, not millions).
 */
async function clientProducts(env: Env, clientId: string) {
  const { products, stock, deals } = await clientCatalogue(env.DB, clientId);
  const stockBySku = new Map<string, { value: string; available: number }[]>();
  for (const row of stock) {
    const list = stockBySku.get(row.sku) ?? [];
    list.push(row);
    stockBySku.set(row.sku, list);
  }
  const dealBySku = new Map(deals.map((row) => [row.sku, row]));
  // A SKU whose supplier may not serve this environment cannot be ordered here: not offered either.
  const served = products.filter((row) => supplierRefusal(row.supplier, env) === null);
  const view = served.map((row) => {
    const deal = dealBySku.get(row.sku);
    return clientProductView(
      productFromRow(row),
      stockBySku.get(row.sku) ?? [],
      deal === undefined ? null : dealFromRow(deal),
    );
  });
  return { products: view };
}

/** This file's routes, each with its description in GET /openapi.json. */
export const productRoutes: Route[] = [
  route(
    {
      method: "GET",
      path: "/products",
      operationId: "listProducts",
      example: async () => (await examples()).listProducts,
      tag: "Catalogue",
      summary: "The catalogue the calling client can order",
      description:
        "Every active SKU: a fixed SKU lists its `quotes`, a range SKU gives `minQuote`..`maxQuote` (inclusive). `availability` counts the unsold, unreserved codes of inventory SKUs per quote; other SKUs are unlimited. `deal` is the caller's fee and discount on the SKU. Sorted by SKU, not paginated.",
      auth: "apiKey",
      scope: null,
      data: async () => (await views()).ClientProductList,
      messages: ["Products"],
      errors: [],
    },
    async ({ client, env, ok }) => ok("Products", await clientProducts(env, client.id)),
  ),
];
