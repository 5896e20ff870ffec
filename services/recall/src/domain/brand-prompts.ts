import { z } from 'zod';
import type { StructuredPrompt } from '../providers/structured.js';

/** The three questions every provider gets, in parallel. The schema names are the probes' ids. */
export const recognitionAnswerSchema = z.object({
  knows: z.boolean().describe('True only if you have real knowledge of this specific brand'),
  confidence: z.number().min(0).max(1).describe('How sure you are that you know this brand, 0 to 1'),
  summary: z.string().max(4_000).describe('What you know about it in one sentence, or an empty string'),
});

export const descriptionAnswerSchema = z.object({
  description: z.string().max(4_000).describe('What the brand does, in one or two sentences; empty if you do not know'),
  category: z.string().max(1_000).describe('Its product or service category in a few words; empty if you do not know'),
  competitors: z.array(z.string().max(500)).max(50).describe('Up to five competitors; empty if you do not know'),
});

export const categoryAnswerSchema = z.object({
  category: z.string().max(1_000).describe('The product or service category, in a few words'),
  brands: z.array(z.string().max(500)).max(50).describe('Up to ten brands you would recommend in it, best first'),
});

export type RecognitionAnswer = z.infer<typeof recognitionAnswerSchema>;
export type DescriptionAnswer = z.infer<typeof descriptionAnswerSchema>;
export type CategoryAnswer = z.infer<typeof categoryAnswerSchema>;

const system =
  'You answer questions about companies and brands from your own training knowledge only; you cannot browse. ' +
  'Never invent facts: when you do not know something, say so through the empty values the schema allows.';

/** The site's host without `www.`, which names the brand's site without sending the full URL. */
export function siteOf(url: string): string {
  return new URL(url).hostname.replace(/^www\./, '');
}

export function brandPrompts(brand: string, url: string) {
  const site = siteOf(url);
  const quoted = JSON.stringify(brand);
  const recognition: StructuredPrompt<typeof recognitionAnswerSchema> = {
    name: 'brand_recognition',
    description: 'Whether you know the brand',
    system,
    user: `Do you know the brand ${quoted} (website ${site})? Answer from what you learned in training.`,
    schema: recognitionAnswerSchema,
    maxOutputTokens: 1_000,
  };
  const description: StructuredPrompt<typeof descriptionAnswerSchema> = {
    name: 'brand_description',
    description: 'What the brand does',
    system,
    user: `What does the brand ${quoted} (website ${site}) do? Give a short description, its category and up to five competitors.`,
    schema: descriptionAnswerSchema,
    maxOutputTokens: 1_500,
  };
  const category: StructuredPrompt<typeof categoryAnswerSchema> = {
    name: 'category_recall',
    description: 'Which brands you would recommend in the category',
    system,
    user:
      `Someone is shopping in the category of the business at ${site}. Name that category in a few words, ` +
      'then list up to ten brands you would recommend in it, best first.',
    schema: categoryAnswerSchema,
    maxOutputTokens: 1_500,
  };
  return { recognition, description, category };
}
