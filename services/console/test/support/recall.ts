// The recall service's model providers for console tests: the local servers recall's own tests use, speaking
// OpenAI's and Anthropic's real protocols, so the production SDKs run. Both know the brand they are given
// (a high brand score) and write grounded answers citing the first passage found.
import {
  type FakeBehaviour,
  type FakeProvider,
  fakeProvidersEnv,
  knowingAnswers,
  startFakeAnthropic,
  startFakeOpenAi,
} from '@voice/kit/testing';

export const knownBrand = 'Acme Voice';
/** The grounded answer every question gets: it cites the first passage recall found. */
export const groundedAnswer = 'Calls are answered from 8am to 6pm on weekdays [1].';

const answering: FakeBehaviour = (name, body) =>
  name === 'grounded_answer'
    ? { kind: 'json', value: { answerable: true, answer: groundedAnswer, cited: [1] } }
    : knowingAnswers(knownBrand)(name, body);

export interface FakeRecallProviders {
  /** The recall service's environment pointing at both fakes. */
  env: Record<string, string>;
  openai: FakeProvider;
  anthropic: FakeProvider;
  close(): Promise<void>;
}

export async function startFakeRecallProviders(): Promise<FakeRecallProviders> {
  const openai = await startFakeOpenAi(answering);
  const anthropic = await startFakeAnthropic(answering);
  return {
    openai,
    anthropic,
    env: {
      ...fakeProvidersEnv(openai, anthropic),
      PROVIDER_MAX_RETRIES: '0',
    },
    async close() {
      await openai.close();
      await anthropic.close();
    },
  };
}
