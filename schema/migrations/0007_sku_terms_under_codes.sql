-- A code carries no currency, type or supplier of its own: it is worth its value in the currency its SKU has.
-- So while a SKU has codes on sale or held by an order, its currency, product type and supplier stay as they
-- are (relabelling USD 100 codes as JPY 100 would sell them for about USD 0.67). The database refuses the
-- change itself, in the same statement as the write, so a code upload landing after the operator API's
-- check still stops it. Sold codes do not count: they are delivered, in the currency of their order.
CREATE TRIGGER products_terms_keep_codes
BEFORE UPDATE OF currency, product_type, supplier ON products
WHEN (NEW.currency IS NOT OLD.currency OR NEW.product_type IS NOT OLD.product_type OR NEW.supplier IS NOT OLD.supplier)
  AND EXISTS (SELECT 1 FROM codes WHERE sku = OLD.sku AND status IN ('available', 'reserved'))
BEGIN
  SELECT RAISE(ABORT, 'sku_has_unsold_codes');
END;
