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

/**
 * The console's one larger form: a knowledge document of `knowledgeLimits.textMaxLength` (200,000) characters,
 * percent-encoded (up to 9 bytes for a character of 3 UTF-8 bytes), with its title and source. Only the
 * document routes take it; the gateway reads console bodies up to it, the console's other routes keep
 * `requestBodyLimitBytes.console`.
 */
export const consoleDocumentBodyLimitBytes = 2 * 1024 * 1024;

export type ServiceName = keyof typeof requestBodyLimitBytes;
