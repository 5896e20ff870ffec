-- CreateIndex
CREATE INDEX "enrollments_status_next_step_at_idx" ON "enrollments"("status", "next_step_at");
