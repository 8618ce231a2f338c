-- The console's charts read the orders' figures from the books' published counters (`books_days`,
-- migration 0030; docs/books.md), and the orders no longer write D1's order_index: the triggers of
-- migration 0020 that kept daily figures from order_index rows (3 rows an order) go, and with them the
-- tables only they wrote and nothing reads any more. daily_stock and its triggers on the codes stay: they
-- grow with codes uploaded and sold per day, not with orders, and the SKU pages read them.
-- order_index itself stays until the books' backfill (migration 0031) has moved its rows: its last step
-- drops it, with its indexes and any trigger left on it.
DROP TRIGGER IF EXISTS daily_figures_order_added;
DROP TRIGGER IF EXISTS daily_orders_amounts;
DROP TRIGGER IF EXISTS daily_orders_moved;
DROP TRIGGER IF EXISTS daily_clients_amounts;
DROP TRIGGER IF EXISTS daily_clients_moved;
DROP TRIGGER IF EXISTS daily_lines_changed;
DROP TRIGGER IF EXISTS daily_figures_order_removed;
DROP INDEX IF EXISTS daily_clients_day;
DROP TABLE IF EXISTS daily_orders;
DROP TABLE IF EXISTS daily_clients;
DROP TABLE IF EXISTS daily_lines;
