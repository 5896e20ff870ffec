-- CreateIndex
CREATE INDEX "leads_org_id_qualified_at_idx" ON "leads"("org_id", "qualified_at");
