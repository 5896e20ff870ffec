const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** A message's body: the value as UTF-8 JSON. */
export function jsonPayload(value: unknown): Uint8Array {
  return encoder.encode(JSON.stringify(value));
}

/** The JSON value a message's body holds (throws on a body that is not JSON). */
export function parsePayload(data: Uint8Array): unknown {
  return JSON.parse(decoder.decode(data));
}
