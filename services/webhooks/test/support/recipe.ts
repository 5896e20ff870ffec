import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

export type VerifyWebhook = (secret: string, headers: Record<string, unknown>, rawBody: string) => boolean;

/** Loads the verification recipe exactly as the README shows it, so the documented code is what is tested. */
export async function loadReadmeRecipe(): Promise<VerifyWebhook> {
  const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
  const match = /<!-- verify-recipe[^>]*-->\s*```js\n([\s\S]*?)```/.exec(readme);
  if (!match?.[1]) throw new Error('README.md has no verify-recipe block');
  const file = join(mkdtempSync(join(tmpdir(), 'webhooks-recipe-')), 'verify.mjs');
  writeFileSync(file, match[1]);
  const module = (await import(pathToFileURL(file).href)) as { verifyWebhook: VerifyWebhook };
  return module.verifyWebhook;
}
