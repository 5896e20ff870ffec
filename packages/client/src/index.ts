export { type BodyOf, type CallOptions, type QueryOf, type ResultOf, VoiceClient, type VoiceClientOptions } from './client.js';
export { type ErrorCode, type ErrorEnvelope, VoiceApiError } from './errors.js';
export type { components, operations, paths } from './schema.js';
export type { RateLimit, RetryOptions } from './transport.js';
export { type VerifyWebhookOptions, verifyWebhook, type WebhookHeaders, WebhookVerificationError } from './webhooks.js';
