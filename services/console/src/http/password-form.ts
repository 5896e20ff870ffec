import { z } from 'zod';
import type { FieldErrors } from '../views/components.js';

/**
 * The fields of every form that sets a new password (accepting an invitation, a reset link, the account
 * page): the password, at least `minLength` characters, typed twice. Add `.refine(samePasswords, …)`.
 */
export const newPasswordShape = (minLength: number) => ({
  password: z
    .string()
    .min(minLength, `Choose a password of at least ${minLength} characters.`)
    .max(1024, 'A password has at most 1024 characters.'),
  password_confirmation: z.string().max(1024),
});

/** With `refine`, `path: ['password_confirmation']` puts the error under the repeated field. */
export const samePasswords = (form: { password: string; password_confirmation: string }) => form.password === form.password_confirmation;
export const differentPasswordsMessage = 'The two passwords differ.';

/** A person's name, as they give it when they join and change it on the account page. */
export const personName = z.string().trim().min(1, 'Enter your name.').max(100, 'A name has at most 100 characters.');

/** A form's first error per field (`param`), so each shows under its own field; one about no field goes to `general`. */
export function fieldErrors(error: z.ZodError, general: string): FieldErrors {
  const errors: FieldErrors = {};
  for (const issue of error.issues) errors[String(issue.path[0] ?? general)] ??= issue.message;
  return errors;
}
