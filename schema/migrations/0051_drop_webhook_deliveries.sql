-- The receivers' last answers to webhook events live in the order's row in its client's books
-- (docs/books.md, "Webhook answers"), where the console's order timeline reads them: the queue consumer no
-- longer writes a D1 row per answer, and nothing reads this table. Its rows were for display only (the
-- deliveries themselves are the queue's and the dead letters'), so it goes without a copy.
DROP TABLE IF EXISTS webhook_deliveries;
