import { test } from 'node:test';
import { describeFuzz, signedInFormVariants } from './support/fuzz.js';

// Every console form (POST) with malformed fields or path segments while signed in as an owner, with the
// session's form token so the fields reach their handlers: no 500, and an error is a page. See
// support/fuzz.ts; what is refused before the session is looked at is input-fuzz-signed-out's.
describeFuzz('every console form, malformed input, signed in, through the gateway', undefined, (fuzz) => {
  test('form fields and path segments get no 500', () =>
    fuzz().fuzz(
      'signed in',
      () => signedInFormVariants,
      () => fuzz().signedIn(),
      { method: 'POST' },
    ));
});
