/**
 * The largest request body each service accepts. Services pass theirs to fastify; the gateway reads a body
 * up to the same limit before proxying and refuses a larger one (declared or chunked) with 413, so an
 * oversize upload never half-reaches a service.
 */
export const requestBodyLimitBytes = {
  telephony: 64 * 1024,
  leads: 1024 * 1024,
  recall: 1024 * 1024,
  // A knowledge document of 200,000 multi-byte characters inside a JSON-RPC envelope.
  mcp: 2 * 1024 * 1024,
  webhooks: 1024 * 1024,
  // The console's forms: a name, an e-mail address, a password.
  console: 64 * 1024,
} as const;

export type ServiceName = keyof typeof requestBodyLimitBytes;
