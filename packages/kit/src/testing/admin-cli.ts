import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/** The repository's root, from this file's place (packages/kit/src/testing). */
const root = fileURLToPath(new URL('../../../../', import.meta.url));

/**
 * Runs `npm run -s admin -- …` as the operator runs it, from the repository's root, without blocking this
 * process (whose services may have to answer the CLI over NATS).
 */
export function runAdmin(args: string[], env: Record<string, string>): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn('npm', ['run', '--silent', 'admin', '--', ...args], { cwd: root, env: { ...process.env, ...env } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString('utf8');
    });
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString('utf8');
    });
    child.once('error', reject);
    child.once('close', (status) => resolve({ status, stdout, stderr }));
  });
}
