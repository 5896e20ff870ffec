import { type EventData, eventExample, type SubscribableEventType, subscribableEventTypes } from '@voice/proto';

// Event data as the services publish it, for tests that publish events themselves: `Bus.publish` takes only
// data its consumers accept, so a test's event has to be a real one too. The data is proto's documented
// example of each type (`eventExamples`), the same the test helper sends, so there is one set of samples.

export type SampleEventType = SubscribableEventType;

/** Every type with a sample: every type a service publishes, which webhooks deliver. */
export const sampleEventTypes: readonly SampleEventType[] = subscribableEventTypes;

/** A valid `data` of the type, with `overrides` on top (say the record's id); a copy, so a test may change it. */
export function sampleEventData<T extends SampleEventType>(type: T, overrides: Partial<EventData<T>> = {}): EventData<T> {
  return { ...structuredClone(eventExample(type)), ...overrides } as EventData<T>;
}
