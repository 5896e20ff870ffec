import { z } from 'zod';

/**
 * One question put to a model, answered as structured output. The zod schema is the contract: its JSON
 * Schema goes to the provider (OpenAI `response_format`, Anthropic tool `input_schema`) and the same schema
 * validates what comes back, so an answer is either exactly the shape asked for or an error.
 */
export interface StructuredPrompt<S extends z.ZodObject = z.ZodObject> {
  /** Schema and tool name: lowercase with underscores, e.g. `brand_recognition`. */
  name: string;
  description: string;
  system: string;
  user: string;
  schema: S;
  maxOutputTokens: number;
}

/** Why a provider's answer could not be used. `kind` drives whether the provider counts as failed. */
export type ProviderErrorKind = 'timeout' | 'rate_limited' | 'upstream' | 'auth' | 'malformed' | 'refused';

export class ProviderError extends Error {
  override readonly name = 'ProviderError';
  readonly kind: ProviderErrorKind;

  constructor(kind: ProviderErrorKind, message: string, options: { cause?: unknown } = {}) {
    super(message, { cause: options.cause });
    this.kind = kind;
  }
}

/** A model provider reached through its official SDK. */
export interface LlmProvider {
  readonly name: 'openai' | 'anthropic';
  readonly model: string;
  /** Asks one structured question; resolves with the validated answer or rejects with a ProviderError. */
  ask<S extends z.ZodObject>(prompt: StructuredPrompt<S>, signal: AbortSignal): Promise<z.infer<S>>;
}

const providerSchemas = new WeakMap<z.ZodObject, Record<string, unknown>>();

/**
 * Keywords OpenAI's strict structured outputs refuse (string lengths); zod still enforces them on the answer,
 * with limits generous enough that a verbose model is not turned away.
 */
const unsupportedKeywords = new Set(['$schema', 'minLength', 'maxLength']);

function stripUnsupported(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(stripUnsupported);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.entries(value)
      .filter(([key]) => !unsupportedKeywords.has(key))
      .map(([key, inner]) => [key, stripUnsupported(inner)]),
  );
}

/** The JSON Schema sent to providers: draft-07 style, closed objects, only keywords both APIs accept. */
export function toProviderSchema(schema: z.ZodObject): Record<string, unknown> {
  const cached = providerSchemas.get(schema);
  if (cached) return cached;
  const jsonSchema = stripUnsupported(z.toJSONSchema(schema, { target: 'draft-07' })) as Record<string, unknown>;
  providerSchemas.set(schema, jsonSchema);
  return jsonSchema;
}

/**
 * Finds the JSON object in a model's text: the whole text, a fenced ```json block, or the first balanced
 * `{…}` inside prose. Returns undefined when there is none; never throws.
 */
export function extractJsonObject(text: string): unknown {
  const candidates: string[] = [text.trim()];
  const fenced = /```(?:json)?\s*([\s\S]*?)```/i.exec(text);
  if (fenced?.[1]) candidates.push(fenced[1].trim());
  const start = text.indexOf('{');
  if (start >= 0) {
    let depth = 0;
    let inString = false;
    let escaped = false;
    for (let index = start; index < text.length; index++) {
      const char = text[index];
      if (inString) {
        if (escaped) escaped = false;
        else if (char === '\\') escaped = true;
        else if (char === '"') inString = false;
      } else if (char === '"') inString = true;
      else if (char === '{') depth++;
      else if (char === '}') {
        depth--;
        if (depth === 0) {
          candidates.push(text.slice(start, index + 1));
          break;
        }
      }
    }
  }
  for (const candidate of candidates) {
    if (!candidate.startsWith('{')) continue;
    try {
      return JSON.parse(candidate);
    } catch {
      // try the next candidate
    }
  }
  return undefined;
}

function describeIssues(error: z.ZodError): string {
  return error.issues
    .slice(0, 3)
    .map((issue) => `${issue.path.join('.') || '(root)'}: ${issue.message}`)
    .join('; ');
}

/**
 * Validates a provider's answer against the prompt's schema. `value` is what the SDK handed over: a parsed
 * object (tool input) or text that should contain JSON. Prose or broken JSON is a `malformed` error.
 */
export function parseStructuredAnswer<S extends z.ZodObject>(prompt: StructuredPrompt<S>, value: unknown): z.infer<S> {
  const candidate = typeof value === 'string' ? extractJsonObject(value) : value;
  if (candidate === undefined || candidate === null || typeof candidate !== 'object') {
    const preview = typeof value === 'string' ? value.trim().slice(0, 80) : String(value);
    throw new ProviderError('malformed', `answer to ${prompt.name} is not JSON (began: ${JSON.stringify(preview)})`);
  }
  const result = prompt.schema.safeParse(candidate);
  if (!result.success) {
    throw new ProviderError('malformed', `answer to ${prompt.name} does not match its schema (${describeIssues(result.error)})`);
  }
  return result.data;
}

/** Maps an SDK error (both SDKs expose `status` on API errors) to a ProviderError with a readable message. */
export function toProviderError(error: unknown, provider: string, signal: AbortSignal): ProviderError {
  if (error instanceof ProviderError) return error;
  if (signal.aborted) return new ProviderError('timeout', `${provider} did not answer in time`, { cause: error });
  const status = typeof error === 'object' && error !== null && 'status' in error ? (error as { status: unknown }).status : undefined;
  if (typeof status === 'number') {
    if (status === 429) return new ProviderError('rate_limited', `${provider} is rate limiting us (429)`, { cause: error });
    if (status === 401 || status === 403) return new ProviderError('auth', `${provider} refused the API key (${status})`, { cause: error });
    return new ProviderError('upstream', `${provider} answered ${status}`, { cause: error });
  }
  const name = error instanceof Error ? error.name : '';
  if (name.includes('Timeout')) return new ProviderError('timeout', `${provider} did not answer in time`, { cause: error });
  const message = error instanceof Error ? error.message : String(error);
  return new ProviderError('upstream', `${provider} could not be reached (${message})`, { cause: error });
}
