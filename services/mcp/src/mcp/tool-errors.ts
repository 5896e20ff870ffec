import { ApiError, toApiError } from '@voice/kit';
import type { ErrorCode } from '@voice/proto';
import type { z } from 'zod';

/** What an agent should do next after each error: the second half of every `isError` result. */
const nextStep: Partial<Record<ErrorCode, string>> = {
  invalid_request: 'fix the argument named here and call again',
  invalid_cursor: 'call again without cursor to start from the first page, or with the same filters as the page that gave you the cursor',
  forbidden_scope: 'this tool needs a read-write key; ask the operator for one',
  plan_required: "the organization's plan does not include this; ask the operator about upgrading",
  not_found: 'check the id: it must exist in this organization (the list tools show valid ids)',
  conflict: 'the record is not in a state that allows this; get it again to see its current state',
  idempotency_conflict: 'this idempotency_key was already used with other arguments; use a new key',
  dnc_blocked: 'the number is on the do-not-call list; do not contact it (service_check_dnc shows the entry)',
  quota_exceeded: "this key's monthly quota is used up; wait for the reset (service_get_usage shows when) or ask the operator",
  rate_limited: "the organization's daily limit is reached; wait for the reset at 00:00 UTC",
  unavailable: 'a service did not answer in time; retry in a few seconds',
  upstream_failed: 'an outside provider failed; retry later',
  coming_soon: 'this is not available yet',
  payload_too_large: 'send less data in one call',
  internal: 'something went wrong on our side; retry, and report the request id if it persists',
};

export interface ToolErrorResult {
  [key: string]: unknown;
  isError: true;
  content: Array<{ type: 'text'; text: string }>;
}

/** A business failure as the tool result the agent reads: `code: what happened; what to do next`. */
export function toolError(error: unknown, requestId: string): ToolErrorResult {
  const apiError = toApiError(error);
  const where = apiError.param && !apiError.message.includes(apiError.param) ? ` (argument ${apiError.param})` : '';
  const advice = nextStep[apiError.code];
  const requestIdNote = apiError.code === 'internal' ? ` Request id: ${requestId}.` : '';
  return {
    isError: true,
    content: [
      {
        type: 'text',
        text: `${apiError.code}: ${apiError.message.replace(/\.$/, '')}${where}${advice ? `; ${advice}` : ''}.${requestIdNote}`,
      },
    ],
  };
}

/** The first problem of a failed argument validation, as `invalid_request` with the argument's path. */
export function invalidArguments(error: z.ZodError): ApiError {
  const issue = error.issues[0];
  const param = issue?.path.map(String).join('.') || undefined;
  const message =
    issue?.code === 'unrecognized_keys'
      ? `unknown argument${issue.keys.length === 1 ? '' : 's'} ${issue.keys.join(', ')} (not in this tool's input schema)`
      : `${param ? `${param}: ` : ''}${issue?.message ?? 'invalid arguments'}`;
  return new ApiError('invalid_request', message, param === undefined ? {} : { param });
}

/**
 * An operation's error in the terms of the tool that called it. A tool that renames an argument for its
 * operation (`lead_id` becomes the operation's `id`) gets errors naming `lead_id`, the argument the agent
 * wrote, not a field it never saw. The renaming is read off the two objects: the operation's field is the
 * one argument, under another name, that holds the same value.
 */
export function inToolTerms(error: unknown, args: Record<string, unknown>, input: unknown): unknown {
  if (!(error instanceof ApiError) || error.param === undefined || error.param in args) return error;
  if (input === null || typeof input !== 'object') return error;
  const value = (input as Record<string, unknown>)[error.param];
  if (value === undefined || value === null || typeof value === 'object') return error;
  const sources = Object.keys(args).filter((name) => args[name] === value);
  const argument = sources.length === 1 ? sources[0] : undefined;
  if (argument === undefined) return error;
  // A message that starts with the field's name ("id: …", as argument validation words it) names the argument instead.
  const message = error.message.startsWith(`${error.param}: `)
    ? `${argument}: ${error.message.slice(error.param.length + 2)}`
    : error.message;
  return new ApiError(error.code, message, { param: argument, headers: error.headers, cause: error });
}
