-- Standard Webhooks (docs/webhooks.md): deliveries carry webhook-id, webhook-timestamp and webhook-signature
-- (`v1,<base64 HMAC-SHA256>`), the key being the base64-decoded text after `whsec_`.
--
-- Existing secrets are kept as they are, so no receiver loses a working secret at deploy. Those issued
-- before (`whsec_` + 64 hex digits) are valid base64 and sign with the 48 bytes they decode to, which is
-- what a Standard Webhooks library does with them; POST /admin/clients/:clientId/webhook-secret/rotate
-- moves a client to `whsec_` + base64 of 32 random bytes.
--
-- A rotation keeps the secret it replaces for 24 h, and deliveries in that time carry a second signature
-- made with it, so a receiver can switch secrets without dropping an event.
ALTER TABLE clients ADD COLUMN previous_webhook_secret TEXT;
ALTER TABLE clients ADD COLUMN webhook_secret_rotated_at INTEGER;
