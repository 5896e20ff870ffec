import OpenAI from 'openai';
import type { z } from 'zod';
import {
  type LlmProvider,
  ProviderError,
  parseStructuredAnswer,
  type StructuredPrompt,
  toProviderError,
  toProviderSchema,
} from './structured.js';

export interface OpenAiProviderOptions {
  apiKey: string;
  /** Any server speaking the Chat Completions API; the SDK's default (api.openai.com) when undefined. */
  baseURL: string | undefined;
  model: string;
  maxRetries: number;
}

/** OpenAI through its official SDK: Chat Completions with `response_format: json_schema` (strict). */
export function createOpenAiProvider(options: OpenAiProviderOptions): LlmProvider {
  const client = new OpenAI({
    apiKey: options.apiKey,
    ...(options.baseURL === undefined ? {} : { baseURL: options.baseURL }),
    maxRetries: options.maxRetries,
  });
  return {
    name: 'openai',
    model: options.model,
    async ask<S extends z.ZodObject>(prompt: StructuredPrompt<S>, signal: AbortSignal): Promise<z.infer<S>> {
      let content: string | null | undefined;
      try {
        const completion = await client.chat.completions.create(
          {
            model: options.model,
            messages: [
              { role: 'system', content: prompt.system },
              { role: 'user', content: prompt.user },
            ],
            response_format: {
              type: 'json_schema',
              json_schema: { name: prompt.name, description: prompt.description, schema: toProviderSchema(prompt.schema), strict: true },
            },
            max_completion_tokens: prompt.maxOutputTokens,
          },
          { signal },
        );
        const message = completion.choices?.[0]?.message;
        if (message?.refusal)
          throw new ProviderError('refused', `openai refused to answer ${prompt.name}: ${message.refusal.slice(0, 160)}`);
        content = message?.content;
      } catch (error) {
        throw toProviderError(error, 'openai', signal);
      }
      if (typeof content !== 'string' || content.trim() === '') {
        throw new ProviderError('malformed', `openai returned no content for ${prompt.name}`);
      }
      return parseStructuredAnswer(prompt, content);
    },
  };
}
