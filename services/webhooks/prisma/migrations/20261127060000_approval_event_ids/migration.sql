-- Approval events used to be recorded with ids such as evt_req_apr_… and evt_res_apr_…, outside the
-- published event id pattern (evt_ and 8 to 40 base62 characters), so the delivery log, a delivery and
-- replay answered 500 for every endpoint that had received one. Each gets the id the mcp service now
-- derives for it (kit's eventId: evt_ and the first 32 hex digits of SHA-256 of "<type>:<approval id>"),
-- in the row and in the stored body it is sent with; its deliveries follow (ON UPDATE CASCADE). An id
-- already taken (the same event stored again under its new id) is left alone rather than failing the run.
UPDATE "events" AS e
SET "id" = repaired.new_id,
    "body" = replace(e."body", '"id":"' || e."id" || '"', '"id":"' || repaired.new_id || '"')
FROM (
  SELECT "id" AS old_id,
         'evt_' || left(encode(sha256(convert_to(
           CASE WHEN "id" LIKE 'evt\_req\_%' THEN 'approval.requested:' ELSE 'approval.resolved:' END || substr("id", 9),
           'UTF8')), 'hex'), 32) AS new_id
  FROM "events"
  WHERE "id" ~ '^evt_(req|res)_apr_'
) AS repaired
WHERE e."id" = repaired.old_id
  AND NOT EXISTS (SELECT 1 FROM "events" AS taken WHERE taken."id" = repaired.new_id);
