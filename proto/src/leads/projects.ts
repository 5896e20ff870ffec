// Projects: deliverables for a customer, delivered once.
import { z } from 'zod';
import { timestampSchema } from '../common.js';
import { idSchema } from '../ids.js';
import { listQuerySchema, pageSchema } from '../pagination.js';
import { calendarDateSchema } from './shared.js';

export const projectStatuses = ['active', 'ready', 'delivered'] as const;

export const projectDeliverableSchema = z
  .object({
    name: z.string().trim().min(1).max(200),
    url: z
      .url({ protocol: /^https?$/ })
      .max(2048)
      .nullable()
      .default(null),
    done: z.boolean().default(false),
  })
  .strict();

export const projectSchema = z
  .object({
    id: idSchema('project'),
    object: z.literal('project'),
    lead_id: z.string().nullable().describe('The customer; null once the lead was deleted with its personal data'),
    workspace_id: z.string().nullable(),
    name: z.string(),
    status: z.enum(projectStatuses),
    due_date: calendarDateSchema.nullable(),
    deliverables: z.array(projectDeliverableSchema),
    notes: z.string().nullable(),
    delivered_at: timestampSchema.nullable(),
    created_at: timestampSchema,
    updated_at: timestampSchema,
  })
  .meta({ id: 'Project' });
export type Project = z.infer<typeof projectSchema>;

export const createProjectSchema = z
  .object({
    lead_id: idSchema('lead'),
    workspace_id: idSchema('workspace').nullable().optional(),
    name: z.string().trim().min(1).max(200),
    status: z.enum(['active', 'ready']).default('active').describe('Delivery is its own operation'),
    due_date: calendarDateSchema.nullable().optional(),
    deliverables: z.array(projectDeliverableSchema).max(50).default([]),
    notes: z.string().trim().max(10_000).nullable().optional(),
  })
  .strict();
export type CreateProject = z.infer<typeof createProjectSchema>;

export const updateProjectSchema = z
  .object({
    name: z.string().trim().min(1).max(200).optional(),
    status: z.enum(['active', 'ready']).optional().describe('Delivery is its own operation'),
    due_date: calendarDateSchema.nullable().optional(),
    deliverables: z.array(projectDeliverableSchema).max(50).optional().describe('Replaces every deliverable'),
    notes: z.string().trim().max(10_000).nullable().optional(),
  })
  .strict();
export type UpdateProject = z.infer<typeof updateProjectSchema>;

export const listProjectsQuerySchema = listQuerySchema.extend({
  status: z.enum(projectStatuses).optional(),
  lead_id: idSchema('lead').optional(),
  workspace_id: idSchema('workspace').optional(),
});
export type ListProjectsQuery = z.infer<typeof listProjectsQuerySchema>;
export const projectPageSchema = pageSchema(projectSchema).meta({ id: 'ProjectPage' });
