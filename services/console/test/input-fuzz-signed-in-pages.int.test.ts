import { describe, test } from 'node:test';
import { signedInPageVariants, useFuzzPlatform } from './support/fuzz.js';

// Every console page (GET) with a malformed query, cookie or path segment while signed in as an owner: no
// 500, and an error is a page. See support/fuzz.ts; the forms are input-fuzz-signed-in-forms', what is
// refused before the session is looked at input-fuzz-signed-out's.
describe('every console page, malformed input, signed in, through the gateway', () => {
  const fuzz = useFuzzPlatform();
  test('queries, cookies and path segments get no 500', () =>
    fuzz().fuzz(
      'signed in',
      () => signedInPageVariants,
      () => fuzz().signedIn(),
      { method: 'GET' },
    ));
});
