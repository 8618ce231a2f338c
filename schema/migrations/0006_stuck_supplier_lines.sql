-- The stuck list also shows orders whose upstream line has had an unknown outcome (a timeout, "in
-- progress") for longer than UPSTREAM_UNKNOWN_BUDGET_SECONDS (docs/fulfilment.md): such a row has timer
-- 'supplier' and names the lines' SKUs here, as a JSON array. NULL on rows of a failing timer.
ALTER TABLE timer_failures ADD COLUMN skus TEXT;
