-- Each stored event names the record it is about (a call's page lists the call's events and their
-- deliveries), read through (org_id, record_id, created_at). Events stored before are filled from their
-- bodies with the same rule as proto's eventRecordId: call_id, sms_id, dnc_id or approval_id by type,
-- else data.id.
ALTER TABLE "events" ADD COLUMN "record_id" TEXT;

UPDATE "events"
SET "record_id" = CASE split_part("type", '.', 1)
    WHEN 'call' THEN ("body"::jsonb -> 'data') ->> 'call_id'
    WHEN 'sms' THEN ("body"::jsonb -> 'data') ->> 'sms_id'
    WHEN 'dnc' THEN ("body"::jsonb -> 'data') ->> 'dnc_id'
    WHEN 'approval' THEN ("body"::jsonb -> 'data') ->> 'approval_id'
    ELSE ("body"::jsonb -> 'data') ->> 'id'
  END;

CREATE INDEX "events_org_id_record_id_created_at_idx" ON "events"("org_id", "record_id", "created_at");
