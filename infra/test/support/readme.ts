// Reading the READMEs as a newcomer does: their sections, their shell blocks, and one copied line run in a
// real shell (infra/test/readme*.int.test.ts).
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const execFileAsync = promisify(execFile);
export const root = fileURLToPath(new URL('../../../', import.meta.url));
export const read = (path: string) => readFileSync(new URL(path, `file://${root}`), 'utf8');

/** The text of a `##` or `###` section, from its heading to the next heading of the same or a higher level. */
export function section(markdown: string, heading: string): string {
  const lines = markdown.split('\n');
  const start = lines.findIndex((line) => /^#{2,3} /.test(line) && line.replace(/^#+ /, '') === heading);
  assert.ok(start >= 0, `a section "${heading}"`);
  const level = (lines[start]?.match(/^#+/)?.[0] ?? '').length;
  const end = lines.findIndex((line, index) => index > start && /^#+ /.test(line) && (line.match(/^#+/)?.[0] ?? '').length <= level);
  return lines.slice(start, end === -1 ? undefined : end).join('\n');
}

/** The fenced blocks of a Markdown text in one of the languages. */
export function fencedBlocks(markdown: string, languages: string[]): string[] {
  return [...markdown.matchAll(new RegExp(`^\`\`\`(?:${languages.join('|')})\\n([\\s\\S]*?)^\`\`\`$`, 'gm'))].map(
    (match) => match[1] ?? '',
  );
}

/** The ```sh (or bash, shell) blocks of a Markdown text. */
export const shellBlocks = (markdown: string) => fencedBlocks(markdown, ['sh', 'bash', 'shell']);

/** The command lines of a block: no blank lines; a trailing `# comment` is kept (the shells ignore it). */
export const commands = (block: string) => block.split('\n').filter((line) => line.trim() !== '');

/**
 * Runs one copied line in a shell: zsh with no startup files (its defaults, NOMATCH on), bash as is. Not
 * spawnSync: the gateway the line talks to answers from this process's event loop.
 */
export async function inShell(shell: string, line: string, env: Record<string, string>, cwd = root): Promise<string> {
  const args = shell === 'zsh' ? ['-f', '-c', line] : ['-c', line];
  const run = await execFileAsync(shell, args, { cwd, env: { ...process.env, ...env }, timeout: 120_000 }).catch(
    (error: { code: number; stderr: string }) => assert.fail(`${shell} (exit ${error.code}): ${line}\n${error.stderr}`),
  );
  return run.stdout;
}
