// What an order costs on Cloudflare: the counters of the metrics pass (per order) priced with the price
// list in bench/prices/ (data, with its date). Marginal prices: the plan's monthly allowances are left out.
import { readFileSync } from "node:fs";
import path from "node:path";
import { ROOT } from "./workers.mjs";

export const PRICE_FILE = path.join("bench", "prices", "cloudflare-workers-paid.json");

export function readPrices() {
  return JSON.parse(readFileSync(path.join(ROOT, PRICE_FILE), "utf8"));
}

/**
 * The usage of one order (from `measureCosts`' warm order summary and its CPU) and its price in USD for
 * 1 million orders, by item. Worker CPU is workerd's whole CPU per order, which on this machine includes
 * the objects' own work (Cloudflare bills that as duration instead): an upper bound.
 */
export function priceOfOrders(summary, cpuMsPerOrder, prices, orders = 1_000_000) {
  const { workers, durableObjects: dobj, sqliteStorage: sqlite, d1, queues } = prices;
  const usage = {
    workerRequests: summary.workerRequests + summary.queueConsumerInvocations,
    workerCpuMs: cpuMsPerOrder,
    doRequests: summary.doCalls,
    doGbSeconds: (summary.doActiveMs / 1000) * dobj.memoryGbPerObject,
    sqliteRowsRead: summary.sqliteRowsRead + summary.kvKeysRead,
    sqliteRowsWritten: summary.sqliteRowsWritten + summary.kvKeysWritten,
    d1RowsRead: summary.d1RowsRead,
    d1RowsWritten: summary.d1RowsWritten,
    queueOperations: summary.queueMessages * queues.operationsPerMessage,
  };
  const perMillion = (count, price) => (count * orders * price) / 1_000_000;
  const items = {
    "Worker requests": perMillion(usage.workerRequests, workers.requestsPerMillion),
    "Worker CPU": perMillion(usage.workerCpuMs, workers.cpuMsPerMillion),
    "DO requests": perMillion(usage.doRequests, dobj.requestsPerMillion),
    "DO duration": perMillion(usage.doGbSeconds, dobj.gbSecondsPerMillion),
    "SQLite rows":
      perMillion(usage.sqliteRowsRead, sqlite.rowsReadPerMillion) +
      perMillion(usage.sqliteRowsWritten, sqlite.rowsWrittenPerMillion),
    "D1 rows":
      perMillion(usage.d1RowsRead, d1.rowsReadPerMillion) + perMillion(usage.d1RowsWritten, d1.rowsWrittenPerMillion),
    Queues: perMillion(usage.queueOperations, queues.operationsPerMillion),
  };
  const total = Object.values(items).reduce((a, b) => a + b, 0);
  return { orders, usage, items, total };
}
