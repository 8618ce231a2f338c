/**
 * Setting an exchange rate, whichever way it was asked (PUT /admin/exchange-rates/:base/:target or the
 * console's catalogue page): checked, written with its audit row in one D1 batch.
 */
import { auditStatement } from "../audit/audit-store";
import { fail } from "../kernel/failures";
import { canonicalRate, pairProblem } from "./rate-rules";
import { setRateStatement, type RateRow } from "./rate-store";

/** Who the change's audit row names, as the audit log takes it. */
export type RateActor = Parameters<typeof auditStatement>[1];

/** Sets 1 `base` = `rate` `target`: 400 for a pair of one currency or a rate that is not positive with at most 12 decimals. */
export async function setExchangeRate(
  db: D1Database,
  actor: RateActor,
  base: string,
  target: string,
  given: string | number,
): Promise<RateRow> {
  const problem = pairProblem(base, target);
  if (problem !== null) fail("invalid_parameters", { reason: problem });
  const checked = canonicalRate(given);
  if (!checked.ok) fail("invalid_request_body", { issues: checked.issues });
  const { rate } = checked;
  const [saved] = await db.batch([
    setRateStatement(db, base, target, rate, Date.now()),
    auditStatement(db, actor, "exchange_rate.set", `rate:${base}>${target}`, { rate }),
  ]);
  return (saved!.results as unknown as RateRow[])[0]!;
}
