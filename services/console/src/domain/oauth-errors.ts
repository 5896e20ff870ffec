/**
 * An OAuth protocol error (RFC 6749 section 5.2, RFC 7591, RFC 8707): the endpoint answers
 * `{ error, error_description }` with this status, and the authorization page shows the description.
 */
export class OAuthError extends Error {
  override readonly name = 'OAuthError';
  constructor(
    readonly error: string,
    readonly description: string,
    readonly status = 400,
  ) {
    super(description);
  }
}
