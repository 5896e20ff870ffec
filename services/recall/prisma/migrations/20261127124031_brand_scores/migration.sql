-- CreateTable
CREATE TABLE "brand_scores" (
    "id" TEXT NOT NULL,
    "org_id" TEXT NOT NULL,
    "brand" TEXT NOT NULL,
    "url" TEXT NOT NULL,
    "score" INTEGER NOT NULL,
    "verdict" TEXT NOT NULL,
    "partial" BOOLEAN NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "brand_scores_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "brand_scores_org_id_created_at_id_idx" ON "brand_scores"("org_id", "created_at" DESC, "id" DESC);
