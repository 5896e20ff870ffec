// Hostile and malformed input through the gateway, as a client sends it over a real socket: every answer is
// the right 4xx in the error envelope, and an oversize body is refused with the connection closed.
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { request as httpRequest } from 'node:http';
import type { Socket } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { requestBodyLimitBytes } from '@voice/proto';
import { call, type Json, type Platform, startPlatform } from '../support/harness.js';

interface RawResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Json;
  /** Resolves when the server has closed the connection. */
  closed: Promise<unknown>;
}

/**
 * POSTs `totalBytes` of a JSON body in 16 KiB chunks without a Content-Length (chunked framing), or with
 * one when `declareLength` is set, and stops writing as soon as the answer arrives, as a client whose
 * upload is refused does.
 */
function upload(
  url: string,
  path: string,
  totalBytes: number,
  options: { headers?: Record<string, string>; declareLength?: boolean } = {},
): Promise<RawResponse> {
  const prefix = '{"phone":"+14155550123","reason":"';
  const suffix = '"}';
  const fillerBytes = totalBytes - prefix.length - suffix.length;
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = { 'content-type': 'application/json', ...options.headers };
    if (options.declareLength) headers['content-length'] = String(totalBytes);
    const outgoing = httpRequest(`${url}${path}`, { method: 'POST', headers, agent: false });
    let answered = false;
    outgoing.on('response', (incoming) => {
      answered = true;
      const socket = incoming.socket as Socket;
      const closed = socket.destroyed ? Promise.resolve() : once(socket, 'close');
      let text = '';
      incoming.setEncoding('utf8');
      incoming.on('data', (chunk: string) => {
        text += chunk;
      });
      incoming.on('end', () => resolve({ status: incoming.statusCode ?? 0, headers: incoming.headers, body: JSON.parse(text), closed }));
    });
    // Writing into a connection the server has closed fails; the answer read before that is what counts.
    outgoing.on('error', (error) => {
      if (!answered) reject(error);
    });
    void (async () => {
      outgoing.write(prefix);
      const chunk = 'x'.repeat(16 * 1024);
      for (let sent = 0; sent < fillerBytes && !answered && !outgoing.destroyed; sent += chunk.length) {
        const piece = chunk.slice(0, Math.min(chunk.length, fillerBytes - sent));
        if (!outgoing.write(piece)) await Promise.race([once(outgoing, 'drain'), once(outgoing, 'response'), once(outgoing, 'close')]);
      }
      if (!answered && !outgoing.destroyed) outgoing.end(suffix);
    })().catch(() => {});
  });
}

const nestedJson = (depth: number) => `{"url":${'['.repeat(depth)}${']'.repeat(depth)}}`;

describe('faults through the gateway: the right status in the envelope', () => {
  let platform: Platform;
  let key: string;
  const telegramSecret = 'telegram-secret-token';

  before(async () => {
    platform = await startPlatform({ mcp: { TELEGRAM_WEBHOOK_SECRET: telegramSecret, SLACK_SIGNING_SECRET: 'slack-signing-secret' } });
    ({ key } = await platform.org());
  });
  after(async () => platform?.close());

  test('an oversize chunked body is 413 payload_too_large at the gateway, and the connection is closed', async () => {
    const response = await upload(platform.url, '/api/v1/phone/dnc', requestBodyLimitBytes.telephony * 4, {
      headers: { authorization: `Bearer ${key}` },
    });
    assert.equal(response.status, 413);
    assert.equal(response.body.error.code, 'payload_too_large');
    assert.equal(response.body.error.request_id, response.headers['request-id']);
    assert.equal(response.headers.connection, 'close');
    await response.closed;
  });

  test('an oversize body with its length declared is 413 the same way', async () => {
    const response = await upload(platform.url, '/api/v1/phone/dnc', requestBodyLimitBytes.telephony * 4, {
      headers: { authorization: `Bearer ${key}` },
      declareLength: true,
    });
    assert.equal(response.status, 413);
    assert.equal(response.body.error.code, 'payload_too_large');
    assert.equal(response.headers.connection, 'close');
    await response.closed;
  });

  test('a chunked body within the limit reaches the service whole', async () => {
    const response = await upload(platform.url, '/api/v1/phone/dnc', 400, { headers: { authorization: `Bearer ${key}` } });
    assert.equal(response.status, 201);
    assert.equal(response.body.phone, '+14155550123');
    assert.equal(response.body.reason.length, 400 - '{"phone":"+14155550123","reason":""}'.length);
  });

  test('a service refuses an oversize chunked body itself with 413 and closes the connection', async () => {
    // The public audit route needs no identity, so the body is what the service judges.
    const response = await upload(platform.recall.url, '/api/public/marketing-audit', requestBodyLimitBytes.recall + 64 * 1024);
    assert.equal(response.status, 413);
    assert.equal(response.body.error.code, 'payload_too_large');
    assert.equal(response.headers.connection, 'close');
    await response.closed;
  });

  test('JSON nested 10,000 deep is 400 on the public audit, not a 500', async () => {
    const response = await call(platform.url, 'POST', '/api/public/marketing-audit', { raw: nestedJson(10_000) });
    assert.equal(response.status, 400);
    assert.deepEqual([response.body.error.code, response.body.error.param], ['invalid_request', 'url']);
  });

  test('the Telegram hook checks its secret token before the body: without it 401, with it a deep body is 400', async () => {
    const unsigned = await call(platform.url, 'POST', '/api/hooks/telegram', { raw: nestedJson(10_000) });
    assert.equal(unsigned.status, 401);
    assert.equal(unsigned.body.error.code, 'unauthenticated');
    const malformed = await call(platform.url, 'POST', '/api/hooks/telegram', { raw: '{"update_id": ' });
    assert.equal(malformed.status, 401, 'a body that does not parse is not even read without the token');
    const signed = await call(platform.url, 'POST', '/api/hooks/telegram', {
      raw: nestedJson(10_000),
      headers: { 'x-telegram-bot-api-secret-token': telegramSecret },
    });
    assert.equal(signed.status, 400);
    assert.equal(signed.body.error.code, 'invalid_request');
  });

  test('the Slack and Twilio hooks parse nothing but their signed form bodies', async () => {
    // JSON is not parsed on these routes at all, deep or not.
    for (const path of ['/api/hooks/slack/interactions', '/api/hooks/twilio/sms/inbound']) {
      const json = await call(platform.url, 'POST', path, { raw: nestedJson(10_000) });
      assert.equal(json.status, 400, path);
      assert.deepEqual([json.body.error.code, json.body.error.param], ['invalid_request', 'content-type'], path);
    }
    const deepPayload = new URLSearchParams({ payload: nestedJson(10_000) }).toString();
    const form = { 'content-type': 'application/x-www-form-urlencoded' };
    const slack = await call(platform.url, 'POST', '/api/hooks/slack/interactions', { raw: deepPayload, headers: form });
    assert.equal(slack.status, 401);
    assert.equal(slack.body.error.code, 'unauthenticated');
    const twilio = await call(platform.url, 'POST', '/api/hooks/twilio/sms/inbound', { raw: 'From=%2B14155550100&Body=hi', headers: form });
    assert.equal(twilio.status, 403);
    assert.equal(twilio.body.error.code, 'forbidden');
  });

  test('a path that is not valid percent-encoding is 400 in the envelope, at the gateway and at every service', async () => {
    const gatewayPaths = ['/api/v1/phone/calls/%ff', '/api/public/marketing-audit/%ff', '/%ff', '/api/v1/leads/%E0%A4%A'];
    for (const path of gatewayPaths) {
      const response = await call(platform.url, 'GET', path, { key });
      assert.equal(response.status, 400, path);
      assert.equal(response.body.error.code, 'invalid_request', path);
      assert.equal(response.body.error.request_id, response.headers.get('request-id'), path);
    }
    for (const service of [platform.telephony, platform.leads, platform.recall, platform.mcp, platform.webhooks]) {
      const response = await call(service.url, 'GET', '/api/v1/things/%ff');
      assert.equal(response.status, 400, service.url);
      assert.equal(response.body.error.code, 'invalid_request', service.url);
    }
  });
});
