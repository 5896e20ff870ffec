import { isoOrNull } from '@voice/kit';
import type {
  Enrollment,
  EnrollmentStepResult,
  Invoice,
  InvoiceLine,
  Lead,
  LeadNote,
  Project,
  Sequence,
  SequenceStep,
  Theme,
  Workspace,
} from '@voice/proto';
import type {
  Enrollment as EnrollmentRow,
  Invoice as InvoiceRow,
  LeadNote as LeadNoteRow,
  Lead as LeadRow,
  Project as ProjectRow,
  Sequence as SequenceRow,
  Theme as ThemeRow,
  Workspace as WorkspaceRow,
} from '../generated/prisma/client.js';

// Stored rows as public records. JSON columns hold what the domain wrote from validated input, so they
// are typed here rather than parsed again on every read.

/** `@db.Date` columns come back as midnight UTC; the public form is the calendar date. */
const isoDate = (date: Date | null) => (date ? date.toISOString().slice(0, 10) : null);

export function toWorkspace(row: WorkspaceRow): Workspace {
  return {
    id: row.id,
    object: 'workspace',
    name: row.name,
    slug: row.slug,
    timezone: row.timezone,
    locale: row.locale,
    phone_numbers: row.phoneNumbers,
    default_theme_id: row.defaultThemeId,
    metadata: row.metadata as Workspace['metadata'],
    created_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
  };
}

export function toTheme(row: ThemeRow): Theme {
  return {
    id: row.id,
    object: 'theme',
    name: row.name,
    voice: row.voice,
    greeting: row.greeting,
    tone: row.tone,
    colors: row.colors as Theme['colors'],
    logo_url: row.logoUrl,
    is_default: row.isDefault,
    created_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
  };
}

export function toLead(row: LeadRow): Lead {
  return {
    id: row.id,
    object: 'lead',
    workspace_id: row.workspaceId,
    name: row.name,
    phone: row.phone,
    email: row.email,
    company: row.company,
    status: row.status,
    qualified_at: isoOrNull(row.qualifiedAt),
    source: row.source,
    tags: row.tags,
    owner: row.owner,
    custom_fields: row.customFields as Lead['custom_fields'],
    last_contacted_at: isoOrNull(row.lastContactedAt),
    next_action: row.nextAction,
    next_action_at: isoOrNull(row.nextActionAt),
    created_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
  };
}

export function toLeadNote(row: LeadNoteRow): LeadNote {
  return {
    id: row.id,
    object: 'lead_note',
    lead_id: row.leadId,
    body: row.body,
    author: row.author,
    created_at: row.createdAt.toISOString(),
  };
}

export function sequenceSteps(row: Pick<SequenceRow, 'steps'>): SequenceStep[] {
  return row.steps as SequenceStep[];
}

export function toSequence(row: SequenceRow): Sequence {
  return {
    id: row.id,
    object: 'sequence',
    name: row.name,
    description: row.description,
    workspace_id: row.workspaceId,
    steps: sequenceSteps(row),
    created_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
  };
}

export function enrollmentHistory(row: Pick<EnrollmentRow, 'history'>): EnrollmentStepResult[] {
  return row.history as EnrollmentStepResult[];
}

export function toEnrollment(row: EnrollmentRow): Enrollment {
  return {
    id: row.id,
    object: 'enrollment',
    sequence_id: row.sequenceId,
    lead_id: row.leadId,
    status: row.status,
    steps: sequenceSteps(row),
    current_step: row.currentStep,
    next_step_at: isoOrNull(row.nextStepAt),
    stopped_reason: row.stoppedReason,
    history: enrollmentHistory(row),
    started_at: row.startedAt.toISOString(),
    completed_at: isoOrNull(row.completedAt),
    stopped_at: isoOrNull(row.stoppedAt),
    created_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
  };
}

export function toInvoice(row: InvoiceRow): Invoice {
  return {
    id: row.id,
    object: 'invoice',
    lead_id: row.leadId,
    workspace_id: row.workspaceId,
    status: row.status,
    currency: row.currency,
    lines: row.lines as InvoiceLine[],
    subtotal: Number(row.subtotal),
    tax: Number(row.tax),
    total: Number(row.total),
    due_date: isoDate(row.dueDate),
    memo: row.memo,
    metadata: row.metadata as Invoice['metadata'],
    sent_at: isoOrNull(row.sentAt),
    paid_at: isoOrNull(row.paidAt),
    voided_at: isoOrNull(row.voidedAt),
    created_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
  };
}

export function toProject(row: ProjectRow): Project {
  return {
    id: row.id,
    object: 'project',
    lead_id: row.leadId,
    workspace_id: row.workspaceId,
    name: row.name,
    status: row.status,
    due_date: isoDate(row.dueDate),
    deliverables: row.deliverables as Project['deliverables'],
    notes: row.notes,
    delivered_at: isoOrNull(row.deliveredAt),
    created_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
  };
}
