import type { Role } from '../generated/prisma/enums.js';

export type { Role };
export const roles: readonly Role[] = ['owner', 'admin', 'member'];

/** Owners and admins manage keys, webhooks, approval channels and members; members only look. */
export function canManage(role: Role): boolean {
  return role === 'owner' || role === 'admin';
}

/** Only an owner may make someone an owner or change or remove an owner, so admins cannot take over. */
export function canChangeRole(actor: Role, from: Role, to: Role): boolean {
  if (!canManage(actor)) return false;
  return actor === 'owner' || (from !== 'owner' && to !== 'owner');
}
