// What the generated types accept, checked by the compiler (`npm run typecheck`): each `@ts-expect-error`
// fails the typecheck if its line compiles. The functions are never called; the test only keeps them in a file.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { components, operations, ResultOf, VoiceClient } from '../src/index.js';

export function typeChecks(client: VoiceClient) {
  // A field with a default is optional in a request: the do-not-call entry's channel defaults to `all`.
  void client.dnc.add({ phone: '+14155550123' });
  void client.dnc.add({ phone: '+14155550123', channel: 'sms' });
  // @ts-expect-error phone has no default
  void client.dnc.add({ channel: 'sms' });
  // @ts-expect-error channel is one of voice, sms, all
  void client.dnc.add({ phone: '+14155550123', channel: 'fax' });
  // ...and the answer always has it.
  const entry: components['schemas']['DncEntry'] = {} as components['schemas']['DncEntry'];
  const channel: 'voice' | 'sms' | 'all' = entry.channel;

  // The recall body is either {query} or {brand, url}.
  void client.recall({ query: 'opening hours' });
  void client.recall({ brand: 'Acme', url: 'https://acme.example' });
  // @ts-expect-error neither form
  void client.recall({});
  // @ts-expect-error url needs brand
  void client.recall({ url: 'https://acme.example' });

  // Lists take their filters and yield their records.
  // @ts-expect-error direction is inbound or outbound
  void client.calls.list({ direction: 'sideways' });
  return async () => {
    for await (const call of client.calls.list({ direction: 'inbound' })) {
      const id: string = call.id;
      // @ts-expect-error a call has no such field
      void call.nonexistent;
      void id;
    }
    void channel;
  };
}

// Every operation's success answer has a type (a `never` would let any property through unnoticed); the one
// exception answers only 501 coming_soon.
type Untyped = { [K in keyof operations]: [ResultOf<operations[K]>] extends [never] ? K : never }[keyof operations];
export const everyAnswerTyped: [Untyped] extends ['marketingAudit'] ? true : false = true;

test('the type checks compile (run by npm run typecheck)', () => {
  assert.equal(typeof typeChecks, 'function');
});
