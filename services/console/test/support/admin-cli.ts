// `npm run -s admin -- …` as the operator runs it: kit's, shared with the dead-letter commands' tests.
export { runAdmin } from '@voice/kit/testing';
