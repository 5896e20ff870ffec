import Anthropic from '@anthropic-ai/sdk';
import type { z } from 'zod';
import {
  type LlmProvider,
  ProviderError,
  parseStructuredAnswer,
  type StructuredPrompt,
  toProviderError,
  toProviderSchema,
} from './structured.js';

export interface AnthropicProviderOptions {
  apiKey: string;
  /** Any server speaking the Messages API; the SDK's default (api.anthropic.com) when undefined. */
  baseURL: string | undefined;
  model: string;
  maxRetries: number;
}

/**
 * Anthropic through its official SDK: the Messages API with one tool whose `input_schema` is the answer's
 * schema and `tool_choice` forcing it. A server that answers with JSON text instead is accepted too.
 */
export function createAnthropicProvider(options: AnthropicProviderOptions): LlmProvider {
  const client = new Anthropic({
    apiKey: options.apiKey,
    ...(options.baseURL === undefined ? {} : { baseURL: options.baseURL }),
    maxRetries: options.maxRetries,
    logLevel: 'off',
  });
  return {
    name: 'anthropic',
    model: options.model,
    async ask<S extends z.ZodObject>(prompt: StructuredPrompt<S>, signal: AbortSignal): Promise<z.infer<S>> {
      let blocks: Anthropic.ContentBlock[];
      try {
        const message = await client.messages.create(
          {
            model: options.model,
            max_tokens: prompt.maxOutputTokens,
            system: prompt.system,
            messages: [{ role: 'user', content: prompt.user }],
            tools: [
              {
                name: prompt.name,
                description: prompt.description,
                input_schema: toProviderSchema(prompt.schema) as Anthropic.Tool.InputSchema,
              },
            ],
            tool_choice: { type: 'tool', name: prompt.name },
          },
          { signal },
        );
        blocks = Array.isArray(message.content) ? message.content : [];
      } catch (error) {
        throw toProviderError(error, 'anthropic', signal);
      }
      const toolUse = blocks.find((block) => block.type === 'tool_use' && block.name === prompt.name);
      if (toolUse && toolUse.type === 'tool_use') return parseStructuredAnswer(prompt, toolUse.input);
      const text = blocks
        .flatMap((block) => (block.type === 'text' ? [block.text] : []))
        .join('\n')
        .trim();
      if (text === '') throw new ProviderError('malformed', `anthropic returned neither a ${prompt.name} tool call nor text`);
      return parseStructuredAnswer(prompt, text);
    },
  };
}
