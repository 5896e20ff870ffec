import type { FastifyReply, FastifyRequest } from 'fastify';
import type { ConsoleEnv } from '../env.js';
import { clearCookie, setCookie } from './cookies.js';

/**
 * "Done" messages carried through a POST's redirect to the page it leads to, shown there as a toast. The
 * cookie holds only a code from this table, never text, so nobody can make the console say something of
 * theirs; the redirect's address stays as it was.
 */
export const flashMessages = {
  'key-revoked': 'Key revoked.',
  'endpoint-deleted': 'Endpoint deleted.',
  'role-changed': 'Role changed.',
  'member-removed': 'Member removed.',
  'app-revoked': 'App revoked.',
  'channel-unlinked': 'Channel unlinked.',
  'organization-switched': 'Switched organization.',
  'test-mode-on': 'Test mode on: you are viewing test data.',
  'test-mode-off': 'Test mode off: you are viewing live data.',
  'preferences-saved': 'Preferences saved.',
  'call-queued': 'Call queued.',
  'call-canceled': 'Call canceled.',
  'sms-sent': 'Message queued for sending.',
  'dnc-added': 'Number added to the do-not-call list.',
  'dnc-removed': 'Number removed from the do-not-call list.',
  'lead-enrolled': 'Lead enrolled.',
  'enrolled-in-sequence': 'Enrolled in the sequence.',
  'lead-unenrolled': 'Lead unenrolled: no further steps run for it.',
  'workspace-saved': 'Workspace saved.',
  'theme-applied': 'Theme applied to the workspace.',
  'invoice-drafted': 'Invoice drafted.',
  'invoice-saved': 'Draft saved.',
  'invoice-sent': 'Invoice sent.',
  'invoice-paid': 'Invoice marked paid.',
  'invoice-voided': 'Invoice voided.',
  'invoice-deleted': 'Draft deleted.',
  'project-saved': 'Project saved.',
  'project-delivered': 'Project delivered.',
  'lead-created': 'Lead added.',
  'lead-saved': 'Lead saved.',
  'lead-deleted': 'Lead deleted.',
  'note-added': 'Note added.',
  'leads-enrolled': 'The chosen leads are enrolled in the sequence.',
  'name-saved': 'Name saved.',
  'password-changed': 'Password changed. Your other sessions have ended.',
  'session-ended': 'Session signed out.',
  'organization-renamed': 'Organization renamed.',
  'document-added': 'Document added to the knowledge base.',
  'document-saved': 'Document saved.',
  'document-deleted': 'Document deleted.',
} as const;

export type FlashCode = keyof typeof flashMessages;

const flashCookie = 'console_flash';

export function flash(request: FastifyRequest, reply: FastifyReply, env: ConsoleEnv, code: FlashCode): void {
  setCookie(request, reply, env, { name: flashCookie, value: code, maxAgeSeconds: 60 });
}

/** The message waiting for this page view, if any; it is shown once (the cookie is cleared). */
export function takeFlash(request: FastifyRequest, reply: FastifyReply, env: ConsoleEnv): string | undefined {
  // Any value is safe to read: only a code of the table above is ever shown.
  const code = request.cookies[flashCookie];
  if (code === undefined) return undefined;
  clearCookie(request, reply, env, flashCookie);
  return Object.hasOwn(flashMessages, code) ? flashMessages[code as FlashCode] : undefined;
}
