-- The leads search (`q`: text in the name, e-mail, phone or company, any case) was four ILIKE '%…%' tests
-- OR-ed together, which no index serves: on 1,000,000 leads a search for a rare name or a number read every
-- row of the organization (see services/console/README.md, the leads bench). Now one generated column holds
-- the four in lower case and one trigram index covers it (store/leads.ts asks `search_text LIKE '%…%'`);
-- patterns of three characters or more use the index. A larger statistics sample lets the planner tell a
-- rare pattern (bitmap scan, then sort) from a common one (walk the (org_id, created_at, id) index and
-- filter). Adding a stored generated column rewrites the table once.
CREATE EXTENSION IF NOT EXISTS pg_trgm WITH SCHEMA public;

ALTER TABLE "leads" ADD COLUMN "search_text" TEXT GENERATED ALWAYS AS (lower(((((((COALESCE(name, ''::text) || ' '::text) || COALESCE(email, ''::text)) || ' '::text) || COALESCE(phone, ''::text)) || ' '::text) || COALESCE(company, ''::text)))) STORED;
ALTER TABLE "leads" ALTER COLUMN "search_text" SET STATISTICS 1000;

CREATE INDEX "leads_search_text_idx" ON "leads" USING GIN ("search_text" public.gin_trgm_ops);
