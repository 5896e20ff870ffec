-- The calls list's "number contains" search (the console's `number` filter) read two trigram indexes, one
-- per column, and OR-ed their bitmaps; a search of many digits also read the posting lists of the trigrams
-- every number shares (the country and area code: "141", "415"), which cost ~35 ms on 1M calls. Now one
-- generated column holds both numbers, one trigram index covers it, and the search asks the index for the
-- pattern's last 7 digits only (the subscriber number, where numbers differ), checking the whole pattern on
-- the few rows found (src/store/calls.ts). A larger statistics sample lets the planner tell a rare pattern
-- (bitmap scan, then sort) from a common one (walk the (org_id, created_at, id) index and filter).
-- Adding a stored generated column rewrites the table once.
ALTER TABLE "calls" ADD COLUMN "numbers" TEXT GENERATED ALWAYS AS ((from_number || ' '::text) || to_number) STORED;
ALTER TABLE "calls" ALTER COLUMN "numbers" SET STATISTICS 1000;

DROP INDEX "calls_from_number_idx";
DROP INDEX "calls_to_number_idx";
CREATE INDEX "calls_numbers_idx" ON "calls" USING GIN ("numbers" public.gin_trgm_ops);
