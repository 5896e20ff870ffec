import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { EnvError, parseEnv } from '@voice/kit';
import type { z } from 'zod';
import { envSchemas } from './support/env-schemas.js';

// Fail closed: in production every process refuses to start without the secrets it needs, naming them;
// in development and test the published defaults still apply.

/** A complete production environment for every deployable; each test takes one variable away. */
const production: Record<string, string> = {
  NODE_ENV: 'production',
  INTERNAL_SIGNING_SECRET: 'p'.repeat(48),
  WEBHOOK_SECRET_ENCRYPTION_KEY: Buffer.alloc(32, 9).toString('base64'),
  OPENAI_API_KEY: 'sk-test-production',
  SMTP_URL: 'smtp://mail.internal:587',
};

function without(name: string, environment: Record<string, string> = production): Record<string, string> {
  const { [name]: _removed, ...rest } = environment;
  return rest;
}

/** Asserts parseEnv refuses the environment with a message that names the variable. */
function refuses(schema: z.ZodObject, environment: Record<string, string>, variable: string): void {
  assert.throws(
    () => parseEnv(schema, environment),
    (error: unknown) => error instanceof EnvError && error.message.includes(`${variable}: `),
  );
}

describe('production refuses to start without its secrets', () => {
  for (const [name, schema] of Object.entries(envSchemas)) {
    test(`${name}: INTERNAL_SIGNING_SECRET missing, or the published development value, is refused`, () => {
      assert.doesNotThrow(() => parseEnv(schema, production));
      refuses(schema, without('INTERNAL_SIGNING_SECRET'), 'INTERNAL_SIGNING_SECRET');
      const published = parseEnv(schema, { NODE_ENV: 'development' }).INTERNAL_SIGNING_SECRET as string;
      refuses(schema, { ...production, INTERNAL_SIGNING_SECRET: published }, 'INTERNAL_SIGNING_SECRET');
    });

    test(`${name}: in development and test the defaults still apply`, () => {
      for (const NODE_ENV of ['development', 'test']) {
        const env = parseEnv(schema, { NODE_ENV });
        assert.ok((env.INTERNAL_SIGNING_SECRET as string).length >= 32);
      }
      assert.equal(parseEnv(schema, {}).NODE_ENV, 'development');
    });
  }

  test('webhooks: WEBHOOK_SECRET_ENCRYPTION_KEY missing or the published value is refused', () => {
    refuses(envSchemas.webhooks, without('WEBHOOK_SECRET_ENCRYPTION_KEY'), 'WEBHOOK_SECRET_ENCRYPTION_KEY');
    const published = parseEnv(envSchemas.webhooks, { NODE_ENV: 'test' }).WEBHOOK_SECRET_ENCRYPTION_KEY;
    refuses(envSchemas.webhooks, { ...production, WEBHOOK_SECRET_ENCRYPTION_KEY: published }, 'WEBHOOK_SECRET_ENCRYPTION_KEY');
  });

  test('recall: production needs a model provider key, either one', () => {
    refuses(envSchemas.recall, without('OPENAI_API_KEY'), 'OPENAI_API_KEY');
    assert.throws(() => parseEnv(envSchemas.recall, without('OPENAI_API_KEY')), /ANTHROPIC_API_KEY/);
    assert.equal(
      parseEnv(envSchemas.recall, { ...without('OPENAI_API_KEY'), ANTHROPIC_API_KEY: 'sk-ant-test' }).ANTHROPIC_API_KEY,
      'sk-ant-test',
    );
    assert.equal(parseEnv(envSchemas.recall, { NODE_ENV: 'test' }).OPENAI_API_KEY, undefined);
  });

  test('console: production needs an SMTP server (password reset links would only reach the log); development logs them', () => {
    refuses(envSchemas.console, without('SMTP_URL'), 'SMTP_URL');
    assert.equal(parseEnv(envSchemas.console, { NODE_ENV: 'development' }).SMTP_URL, undefined);
    refuses(envSchemas.console, { ...production, SMTP_URL: 'http://mail.internal' }, 'SMTP_URL');
  });

  test('mcp: production needs an SMTP server (approval e-mails would only reach the log); development logs them', () => {
    refuses(envSchemas.mcp, without('SMTP_URL'), 'SMTP_URL');
    assert.equal(parseEnv(envSchemas.mcp, { NODE_ENV: 'development' }).SMTP_URL, undefined);
    refuses(envSchemas.mcp, { ...production, SMTP_URL: 'http://mail.internal' }, 'SMTP_URL');
  });

  test('telephony: the Twilio carrier needs its credentials', () => {
    const twilio = { ...production, TELEPHONY_CARRIER: 'twilio' };
    refuses(envSchemas.telephony, twilio, 'TWILIO_ACCOUNT_SID');
    refuses(envSchemas.telephony, { ...twilio, TWILIO_ACCOUNT_SID: `AC${'0'.repeat(32)}` }, 'TWILIO_AUTH_TOKEN');
  });

  test('mcp: an enabled channel needs its secret', () => {
    refuses(envSchemas.mcp, { ...production, TELEGRAM_BOT_TOKEN: '123:abc' }, 'TELEGRAM_WEBHOOK_SECRET');
    refuses(envSchemas.mcp, { ...production, SLACK_BOT_TOKEN: 'xoxb-1' }, 'SLACK_SIGNING_SECRET');
  });

  test('a process started without its secret exits with one line naming it, not a stack trace', async () => {
    const main = fileURLToPath(new URL('../../gateway/src/main.ts', import.meta.url));
    const environment: NodeJS.ProcessEnv = { ...process.env, NODE_ENV: 'production' };
    delete environment.INTERNAL_SIGNING_SECRET;
    const child = spawn(process.execPath, ['--conditions=source', '--import', 'tsx', main], {
      cwd: fileURLToPath(new URL('../../', import.meta.url)),
      env: environment,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString();
    });
    child.stderr.on('data', (chunk: Buffer) => {
      output += chunk.toString();
    });
    const [code] = await once(child, 'exit');
    assert.equal(code, 1);
    const lines = output.trim().split('\n');
    assert.equal(lines.length, 1, output);
    const line = JSON.parse(lines[0] as string) as { level: number; msg: string };
    assert.equal(line.level, 60);
    assert.match(line.msg, /INTERNAL_SIGNING_SECRET: required in production/);
  });
});
