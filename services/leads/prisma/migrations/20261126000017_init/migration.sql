-- CreateEnum
CREATE TYPE "ThemeTone" AS ENUM ('friendly', 'professional', 'casual', 'formal', 'enthusiastic', 'empathetic');

-- CreateEnum
CREATE TYPE "LeadStatus" AS ENUM ('new', 'contacted', 'qualified', 'unqualified', 'won', 'lost');

-- CreateEnum
CREATE TYPE "LeadSource" AS ENUM ('api', 'mcp', 'inbound_call', 'web', 'import', 'referral', 'other');

-- CreateEnum
CREATE TYPE "EnrollmentStatus" AS ENUM ('active', 'completed', 'stopped');

-- CreateEnum
CREATE TYPE "InvoiceStatus" AS ENUM ('draft', 'sent', 'paid', 'void');

-- CreateEnum
CREATE TYPE "ProjectStatus" AS ENUM ('active', 'ready', 'delivered');

-- CreateTable
CREATE TABLE "workspaces" (
    "id" TEXT NOT NULL,
    "org_id" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "slug" TEXT NOT NULL,
    "timezone" TEXT NOT NULL,
    "locale" TEXT NOT NULL,
    "phone_numbers" TEXT[],
    "default_theme_id" TEXT,
    "metadata" JSONB NOT NULL DEFAULT '{}',
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "workspaces_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "themes" (
    "id" TEXT NOT NULL,
    "org_id" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "voice" TEXT NOT NULL,
    "greeting" TEXT NOT NULL,
    "tone" "ThemeTone" NOT NULL,
    "colors" JSONB NOT NULL,
    "logo_url" TEXT,
    "is_default" BOOLEAN NOT NULL DEFAULT false,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "themes_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "leads" (
    "id" TEXT NOT NULL,
    "org_id" TEXT NOT NULL,
    "workspace_id" TEXT,
    "name" TEXT,
    "phone" TEXT,
    "email" TEXT,
    "company" TEXT,
    "status" "LeadStatus" NOT NULL,
    "qualified_at" TIMESTAMPTZ(3),
    "qualified_by_call_id" TEXT,
    "source" "LeadSource" NOT NULL,
    "tags" TEXT[],
    "owner" TEXT,
    "custom_fields" JSONB NOT NULL DEFAULT '{}',
    "last_contacted_at" TIMESTAMPTZ(3),
    "next_action" TEXT,
    "next_action_at" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "leads_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "lead_notes" (
    "id" TEXT NOT NULL,
    "org_id" TEXT NOT NULL,
    "lead_id" TEXT NOT NULL,
    "body" TEXT NOT NULL,
    "author" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "lead_notes_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "sequences" (
    "id" TEXT NOT NULL,
    "org_id" TEXT NOT NULL,
    "workspace_id" TEXT,
    "name" TEXT NOT NULL,
    "description" TEXT,
    "steps" JSONB NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "sequences_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "enrollments" (
    "id" TEXT NOT NULL,
    "org_id" TEXT NOT NULL,
    "sequence_id" TEXT NOT NULL,
    "lead_id" TEXT NOT NULL,
    "status" "EnrollmentStatus" NOT NULL,
    "active_slot" BOOLEAN DEFAULT true,
    "steps" JSONB NOT NULL,
    "current_step" INTEGER NOT NULL DEFAULT 0,
    "next_step_at" TIMESTAMPTZ(3),
    "stopped_reason" TEXT,
    "history" JSONB NOT NULL DEFAULT '[]',
    "enrolled_by_key_id" TEXT NOT NULL,
    "enrolled_by_plan" TEXT NOT NULL,
    "started_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "completed_at" TIMESTAMPTZ(3),
    "stopped_at" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "enrollments_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "invoices" (
    "id" TEXT NOT NULL,
    "org_id" TEXT NOT NULL,
    "lead_id" TEXT,
    "workspace_id" TEXT,
    "status" "InvoiceStatus" NOT NULL,
    "currency" TEXT NOT NULL,
    "lines" JSONB NOT NULL DEFAULT '[]',
    "subtotal" BIGINT NOT NULL,
    "tax" BIGINT NOT NULL,
    "total" BIGINT NOT NULL,
    "due_date" DATE,
    "memo" TEXT,
    "metadata" JSONB NOT NULL DEFAULT '{}',
    "sent_at" TIMESTAMPTZ(3),
    "paid_at" TIMESTAMPTZ(3),
    "voided_at" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "invoices_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "projects" (
    "id" TEXT NOT NULL,
    "org_id" TEXT NOT NULL,
    "lead_id" TEXT,
    "workspace_id" TEXT,
    "name" TEXT NOT NULL,
    "status" "ProjectStatus" NOT NULL,
    "due_date" DATE,
    "deliverables" JSONB NOT NULL DEFAULT '[]',
    "notes" TEXT,
    "delivered_at" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "projects_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "workspaces_org_id_created_at_id_idx" ON "workspaces"("org_id", "created_at" DESC, "id" DESC);

-- CreateIndex
CREATE UNIQUE INDEX "workspaces_org_id_slug_key" ON "workspaces"("org_id", "slug");

-- CreateIndex
CREATE INDEX "themes_org_id_created_at_id_idx" ON "themes"("org_id", "created_at" DESC, "id" DESC);

-- CreateIndex
CREATE INDEX "leads_org_id_created_at_id_idx" ON "leads"("org_id", "created_at" DESC, "id" DESC);

-- CreateIndex
CREATE INDEX "leads_org_id_status_created_at_id_idx" ON "leads"("org_id", "status", "created_at" DESC, "id" DESC);

-- CreateIndex
CREATE INDEX "leads_org_id_workspace_id_created_at_id_idx" ON "leads"("org_id", "workspace_id", "created_at" DESC, "id" DESC);

-- CreateIndex
CREATE INDEX "leads_tags_idx" ON "leads" USING GIN ("tags");

-- CreateIndex
CREATE INDEX "lead_notes_org_id_lead_id_created_at_id_idx" ON "lead_notes"("org_id", "lead_id", "created_at" DESC, "id" DESC);

-- CreateIndex
CREATE INDEX "sequences_org_id_created_at_id_idx" ON "sequences"("org_id", "created_at" DESC, "id" DESC);

-- CreateIndex
CREATE INDEX "sequences_org_id_workspace_id_created_at_id_idx" ON "sequences"("org_id", "workspace_id", "created_at" DESC, "id" DESC);

-- CreateIndex
CREATE INDEX "enrollments_org_id_sequence_id_created_at_id_idx" ON "enrollments"("org_id", "sequence_id", "created_at" DESC, "id" DESC);

-- CreateIndex
CREATE INDEX "enrollments_org_id_lead_id_created_at_id_idx" ON "enrollments"("org_id", "lead_id", "created_at" DESC, "id" DESC);

-- CreateIndex
CREATE UNIQUE INDEX "enrollments_sequence_id_lead_id_active_slot_key" ON "enrollments"("sequence_id", "lead_id", "active_slot");

-- CreateIndex
CREATE INDEX "invoices_org_id_created_at_id_idx" ON "invoices"("org_id", "created_at" DESC, "id" DESC);

-- CreateIndex
CREATE INDEX "invoices_org_id_status_created_at_id_idx" ON "invoices"("org_id", "status", "created_at" DESC, "id" DESC);

-- CreateIndex
CREATE INDEX "invoices_org_id_lead_id_created_at_id_idx" ON "invoices"("org_id", "lead_id", "created_at" DESC, "id" DESC);

-- CreateIndex
CREATE INDEX "projects_org_id_created_at_id_idx" ON "projects"("org_id", "created_at" DESC, "id" DESC);

-- CreateIndex
CREATE INDEX "projects_org_id_status_created_at_id_idx" ON "projects"("org_id", "status", "created_at" DESC, "id" DESC);

-- CreateIndex
CREATE INDEX "projects_org_id_lead_id_created_at_id_idx" ON "projects"("org_id", "lead_id", "created_at" DESC, "id" DESC);

-- AddForeignKey
ALTER TABLE "workspaces" ADD CONSTRAINT "workspaces_default_theme_id_fkey" FOREIGN KEY ("default_theme_id") REFERENCES "themes"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "leads" ADD CONSTRAINT "leads_workspace_id_fkey" FOREIGN KEY ("workspace_id") REFERENCES "workspaces"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "lead_notes" ADD CONSTRAINT "lead_notes_lead_id_fkey" FOREIGN KEY ("lead_id") REFERENCES "leads"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "sequences" ADD CONSTRAINT "sequences_workspace_id_fkey" FOREIGN KEY ("workspace_id") REFERENCES "workspaces"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "enrollments" ADD CONSTRAINT "enrollments_sequence_id_fkey" FOREIGN KEY ("sequence_id") REFERENCES "sequences"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "enrollments" ADD CONSTRAINT "enrollments_lead_id_fkey" FOREIGN KEY ("lead_id") REFERENCES "leads"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "invoices" ADD CONSTRAINT "invoices_lead_id_fkey" FOREIGN KEY ("lead_id") REFERENCES "leads"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "invoices" ADD CONSTRAINT "invoices_workspace_id_fkey" FOREIGN KEY ("workspace_id") REFERENCES "workspaces"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "projects" ADD CONSTRAINT "projects_lead_id_fkey" FOREIGN KEY ("lead_id") REFERENCES "leads"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "projects" ADD CONSTRAINT "projects_workspace_id_fkey" FOREIGN KEY ("workspace_id") REFERENCES "workspaces"("id") ON DELETE SET NULL ON UPDATE CASCADE;
