// Records, request schemas and operations of the leads service, one module a resource in ./leads/:
// workspaces, themes, leads (and their notes), sequences and enrollments, invoices and projects, and the
// operations map (`leadsRpc`).
export * from './leads/invoices.js';
export * from './leads/leads.js';
export * from './leads/operations.js';
export * from './leads/projects.js';
export * from './leads/sequences.js';
export * from './leads/shared.js';
export * from './leads/themes.js';
export * from './leads/workspaces.js';
