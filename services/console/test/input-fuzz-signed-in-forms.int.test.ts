import { describe, test } from 'node:test';
import { signedInFormVariants, useFuzzPlatform } from './support/fuzz.js';

// Every console form (POST) with malformed fields or path segments while signed in as an owner, with the
// session's form token so the fields reach their handlers: no 500, and an error is a page. See
// support/fuzz.ts; what is refused before the session is looked at is input-fuzz-signed-out's.
describe('every console form, malformed input, signed in, through the gateway', () => {
  const fuzz = useFuzzPlatform();
  test('form fields and path segments get no 500', () =>
    fuzz().fuzz(
      'signed in',
      () => signedInFormVariants,
      () => fuzz().signedIn(),
      { method: 'POST' },
    ));
});
