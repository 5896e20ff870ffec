import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { HttpApp } from '@voice/kit';
import { type FakeProvider, gatewayHeaders, startFakeAnthropic, startFakeOpenAi, testIdentity } from '@voice/kit/testing';
import { recallRpc } from '@voice/proto';
import type { RecallDeps } from '../src/deps.js';
import { type Harness, startRecall } from './support/harness.js';

const support = {
  title: 'Support hours',
  text: 'Our support team answers phone calls from 8am to 6pm, Monday to Friday.\n\nOutside those hours the voice agent takes a message and a human calls back the next business day.',
};
const billing = {
  title: 'Billing',
  text: 'Invoices are sent on the first day of each month. You can pay by card or bank transfer; refunds take five business days.',
};
const password = {
  title: 'Account security',
  text: 'To reset your password, open Settings, choose Security and follow the emailed link. Two-factor authentication is recommended.',
};

describe('knowledge base and recall', () => {
  let h: Harness;
  let deps: RecallDeps;
  let app: HttpApp;
  let openai: FakeProvider;
  let anthropic: FakeProvider;
  const org = testIdentity({ monthly_used: 41, monthly_quota: 500 });
  const otherOrg = testIdentity();

  const call = (identity: typeof org, method: 'GET' | 'POST' | 'PATCH' | 'DELETE', url: string, payload?: Record<string, unknown>) =>
    payload === undefined
      ? app.inject({ method, url, headers: gatewayHeaders(identity, method, url) })
      : app.inject({ method, url, headers: gatewayHeaders(identity, method, url), payload });

  before(async () => {
    // The grounded answer cites the first passage; a marker to a passage that does not exist must be dropped.
    openai = await startFakeOpenAi((name, body) => {
      if (name !== 'grounded_answer') return { kind: 'status', status: 400 };
      const messages = body.messages as Array<{ content: string }>;
      // The first line is the question; the passages follow.
      const question = (messages.at(-1)?.content ?? '').split('\n')[0] ?? '';
      if (question.includes('weather')) return { kind: 'json', value: { answerable: false, answer: '', cited: [] } };
      if (question.includes('refund')) return { kind: 'status', status: 500 };
      if (question.includes('card')) return { kind: 'json', value: { answerable: true, answer: 'Yes, cards are accepted.', cited: [] } };
      return {
        kind: 'json',
        value: { answerable: true, answer: 'The team answers calls from 8am to 6pm on weekdays [1] [9].', cited: [1, 9] },
      };
    });
    // Anthropic answers only when OpenAI has failed (the fallback), citing the passage it was given.
    anthropic = await startFakeAnthropic(() => ({
      kind: 'json',
      value: { answerable: true, answer: 'Refunds take five business days [1].', cited: [1] },
    }));
    h = await startRecall({
      OPENAI_API_KEY: 'test-key',
      OPENAI_BASE_URL: openai.baseUrl,
      OPENAI_MODEL: 'gpt-test',
      ANTHROPIC_API_KEY: 'test-key',
      ANTHROPIC_BASE_URL: anthropic.baseUrl,
      PROVIDER_MAX_RETRIES: '0',
      PROVIDER_TIMEOUT_MS: '3000',
    });
    ({ deps, app } = h);
    for (const document of [support, billing, password]) {
      const response = await call(org, 'POST', '/api/v1/knowledge/documents', document);
      assert.equal(response.statusCode, 201, response.body);
    }
    const other = await call(otherOrg, 'POST', '/api/v1/knowledge/documents', {
      title: 'Other org support',
      text: 'The support team of another organization answers phone calls around the clock.',
    });
    assert.equal(other.statusCode, 201);
  });

  after(async () => {
    await h?.close();
    await openai?.close();
    await anthropic?.close();
  });

  test('a document is created, split into passages, listed, read and deleted', async () => {
    const created = await call(org, 'POST', '/api/v1/knowledge/documents', {
      title: 'Temp',
      text: 'Short lived.\n\nSecond paragraph.',
      source_url: 'https://example.com/temp',
    });
    assert.equal(created.statusCode, 201);
    const document = created.json();
    assert.match(document.id, /^doc_/);
    assert.equal(document.object, 'document');
    assert.equal(document.source_url, 'https://example.com/temp');
    assert.equal(document.passage_count, 1);

    const page = await call(org, 'GET', '/api/v1/knowledge/documents?limit=2');
    assert.equal(page.statusCode, 200);
    const body = page.json();
    assert.equal(body.data.length, 2);
    assert.equal(body.has_more, true);
    assert.equal(body.data[0].id, document.id);
    assert.equal('text' in body.data[0], false);
    const next = await call(org, 'GET', `/api/v1/knowledge/documents?limit=2&cursor=${body.next_cursor}`);
    assert.equal(next.json().data.length, 2);

    const read = await call(org, 'GET', `/api/v1/knowledge/documents/${document.id}`);
    assert.equal(read.json().text, 'Short lived.\n\nSecond paragraph.');
    const deleted = await call(org, 'DELETE', `/api/v1/knowledge/documents/${document.id}`);
    assert.deepEqual(deleted.json(), { id: document.id, object: 'document', deleted: true });
    assert.equal((await call(org, 'GET', `/api/v1/knowledge/documents/${document.id}`)).statusCode, 404);
  });

  test('a changed text rebuilds the passages recall finds; another organization cannot change it', async () => {
    const created = (await call(org, 'POST', '/api/v1/knowledge/documents', { title: 'Office', text: 'The office is in Lisbon.' })).json();
    const url = `/api/v1/knowledge/documents/${created.id}`;
    assert.equal((await call(otherOrg, 'PATCH', url, { text: 'Hijacked.' })).statusCode, 404);
    assert.equal((await call(org, 'PATCH', url, {})).statusCode, 400);
    const updated = await call(org, 'PATCH', url, {
      text: 'The office moved to Porto.\n\nParking is on site.',
      source_url: 'https://example.com/office',
    });
    assert.equal(updated.statusCode, 200, updated.body);
    assert.equal(updated.json().passage_count, 1);
    assert.equal(updated.json().source_url, 'https://example.com/office');
    const porto = (await call(org, 'POST', '/api/v1/llm-recall', { query: 'porto' })).json();
    assert.equal(porto.results[0]?.document_id, created.id);
    const lisbon = (await call(org, 'POST', '/api/v1/llm-recall', { query: 'lisbon' })).json();
    assert.ok(lisbon.results.every((result: { document_id: string }) => result.document_id !== created.id));
    const cleared = (await call(org, 'PATCH', url, { source_url: null })).json();
    assert.equal(cleared.source_url, null);
    assert.equal((await call(org, 'DELETE', url)).statusCode, 200);
  });

  test('another organization’s document is not found, and cannot be deleted', async () => {
    const mine = (await call(org, 'GET', '/api/v1/knowledge/documents')).json().data[0].id as string;
    const read = await call(otherOrg, 'GET', `/api/v1/knowledge/documents/${mine}`);
    assert.equal(read.statusCode, 404);
    assert.equal(read.json().error.code, 'not_found');
    assert.equal((await call(otherOrg, 'DELETE', `/api/v1/knowledge/documents/${mine}`)).statusCode, 404);
    assert.equal((await call(org, 'GET', `/api/v1/knowledge/documents/${mine}`)).statusCode, 200);
  });

  test('the same Idempotency-Key and body add one document; another body is 409', async () => {
    const url = '/api/v1/knowledge/documents';
    const send = (payload: Record<string, unknown>) =>
      app.inject({ method: 'POST', url, headers: { ...gatewayHeaders(org, 'POST', url), 'idempotency-key': 'doc-once-1' }, payload });
    const first = await send({ title: 'Once', text: 'Only once.' });
    const again = await send({ title: 'Once', text: 'Only once.' });
    assert.equal(first.statusCode, 201);
    assert.equal(again.statusCode, 201);
    assert.equal(again.headers['idempotent-replayed'], 'true');
    assert.equal(again.json().id, first.json().id);
    const other = await send({ title: 'Once', text: 'Something else.' });
    assert.equal(other.statusCode, 409);
    assert.equal(other.json().error.code, 'idempotency_conflict');
    assert.equal((await call(org, 'DELETE', `${url}/${first.json().id}`)).statusCode, 200);
  });

  test('a read key cannot add or delete documents', async () => {
    const reader = { ...org, scope: 'read' as const };
    const response = await call(reader, 'POST', '/api/v1/knowledge/documents', { title: 'x', text: 'y' });
    assert.equal(response.statusCode, 403);
    assert.equal(response.json().error.code, 'forbidden_scope');
    assert.equal((await call(reader, 'GET', '/api/v1/knowledge/documents')).statusCode, 200);
  });

  test('invalid and oversized documents are refused with the limit named', async () => {
    const empty = await call(org, 'POST', '/api/v1/knowledge/documents', { title: 'x', text: '   ' });
    assert.equal(empty.statusCode, 400);
    assert.equal(empty.json().error.param, 'text');
    const long = await call(org, 'POST', '/api/v1/knowledge/documents', { title: 'x', text: 'a'.repeat(200_001) });
    assert.equal(long.statusCode, 400);
    assert.match(long.json().error.message, /200000/);
    const huge = await call(org, 'POST', '/api/v1/knowledge/documents', { title: 'x', text: 'é'.repeat(600_000) });
    assert.equal(huge.statusCode, 413);
    assert.equal(huge.json().error.code, 'payload_too_large');
    const ftp = await call(org, 'POST', '/api/v1/knowledge/documents', { title: 'x', text: 'y', source_url: 'ftp://example.com/a' });
    assert.equal(ftp.statusCode, 400);
    assert.equal(ftp.json().error.param, 'source_url');
    const badId = await call(org, 'GET', '/api/v1/knowledge/documents/nope');
    assert.equal(badId.statusCode, 400);
  });

  test('a question sharing only some words finds the passage, with a cited answer and the quota figures', async () => {
    const response = await call(org, 'POST', '/api/v1/llm-recall', { query: 'When does the support team pick up the phone?' });
    assert.equal(response.statusCode, 200, response.body);
    const body = response.json();
    assert.equal(body.ok, true);
    assert.equal(body.query, 'When does the support team pick up the phone?');
    assert.ok(body.results.length >= 1);
    assert.equal(body.results[0].title, 'Support hours');
    assert.match(body.results[0].snippet, /<b>/);
    assert.ok(body.results[0].score > 0);
    assert.equal(body.answer, 'The team answers calls from 8am to 6pm on weekdays [1].');
    assert.deepEqual(
      body.citations.map((citation: { ref: number; passage_id: string }) => [citation.ref, citation.passage_id]),
      [[1, body.results[0].passage_id]],
    );
    assert.deepEqual(body.answered_by, { provider: 'openai', model: 'gpt-test' });
    assert.deepEqual(body.api, { monthly_used: 41, monthly_quota: 500 });
  });

  test('recall never returns another organization’s passage', async () => {
    const mine = (await call(org, 'POST', '/api/v1/llm-recall', { query: 'support team phone calls around the clock', limit: 20 })).json();
    assert.ok(mine.results.length > 0);
    assert.ok(mine.results.every((result: { title: string }) => result.title !== 'Other org support'));
    const theirs = (await call(otherOrg, 'POST', '/api/v1/llm-recall', { query: 'reset password invoices support', limit: 20 })).json();
    assert.deepEqual(
      theirs.results.map((result: { title: string }) => result.title),
      ['Other org support'],
    );
  });

  test('snippets are safe HTML: document markup never comes through, matches are bold', async () => {
    const markup = {
      title: 'Widget embed',
      text: 'Paste <script src="https://cdn.example/widget.js"></script> before the closing body tag, Tom & Jerry.',
    };
    assert.equal((await call(org, 'POST', '/api/v1/knowledge/documents', markup)).statusCode, 201);
    const body = (await call(org, 'POST', '/api/v1/llm-recall', { query: 'where do I paste the widget, tom?' })).json();
    const snippet = body.results.find((result: { title: string }) => result.title === 'Widget embed')?.snippet as string;
    assert.match(snippet, /<b>Paste<\/b>/);
    assert.match(snippet, /<b>Tom<\/b> &amp; Jerry/);
    assert.doesNotMatch(snippet, /<script/);
  });

  test('a misspelled word still finds its passage through trigrams', async () => {
    const body = (await call(org, 'POST', '/api/v1/llm-recall', { query: 'pasword resett' })).json();
    assert.equal(body.results[0]?.title, 'Account security');
  });

  test('when OpenAI fails the answer comes from Anthropic', async () => {
    const body = (await call(org, 'POST', '/api/v1/llm-recall', { query: 'how long does a refund take?' })).json();
    assert.equal(body.results[0]?.title, 'Billing');
    assert.equal(body.answer, 'Refunds take five business days [1].');
    assert.equal(body.answered_by.provider, 'anthropic');
    assert.equal(body.citations[0].document_id, body.results[0].document_id);
    assert.equal(anthropic.requests.length, 1);
  });

  test('an answer that cites no passage is not returned as grounded', async () => {
    const body = (await call(org, 'POST', '/api/v1/llm-recall', { query: 'can I pay by card?' })).json();
    assert.equal(body.results[0]?.title, 'Billing');
    assert.equal(body.answer, null);
    assert.deepEqual(body.citations, []);
    assert.match(body.answer_error, /cited none of the passages/);
  });

  test('an unanswerable question keeps the passages and says why there is no answer', async () => {
    const body = (await call(org, 'POST', '/api/v1/llm-recall', { query: 'what is the weather for invoices' })).json();
    assert.equal(body.results[0]?.title, 'Billing');
    assert.equal(body.answer, null);
    assert.match(body.answer_error, /do not answer/);
  });

  test('a query of stop words only finds nothing rather than everything', async () => {
    const body = (await call(org, 'POST', '/api/v1/llm-recall', { query: 'what is the' })).json();
    assert.deepEqual(body.results, []);
    assert.equal(body.answer, null);
  });

  test('the recall body must be one form or the other', async () => {
    const neither = await call(org, 'POST', '/api/v1/llm-recall', {});
    assert.equal(neither.statusCode, 400);
    assert.equal(neither.json().error.code, 'invalid_request');
    const both = await call(org, 'POST', '/api/v1/llm-recall', { query: 'x', brand: 'Acme', url: 'https://acme.test' });
    assert.equal(both.statusCode, 400);
    assert.match(both.json().error.message, /not both/);
    const tooLong = await call(org, 'POST', '/api/v1/llm-recall', { query: 'x'.repeat(1001) });
    assert.equal(tooLong.statusCode, 400);
  });

  test('NATS request/reply serves the same operations, scoped to the caller', async () => {
    const added = await deps.bus.call(recallRpc.addDocument, otherOrg, { title: 'Via NATS', text: 'Parking is free behind the building.' });
    assert.match(added.id, /^doc_/);
    const recalled = await deps.bus.call(recallRpc.recall, otherOrg, { query: 'where can I park?' });
    assert.equal(recalled.results[0]?.document_id, added.id);
    const listed = await deps.bus.call(recallRpc.listDocuments, org, {});
    assert.ok(listed.data.every((document) => document.id !== added.id));
    await assert.rejects(deps.bus.call(recallRpc.getDocument, org, { id: added.id }), { code: 'not_found' });
    const reader = { ...otherOrg, scope: 'read' as const };
    await assert.rejects(deps.bus.call(recallRpc.deleteDocument, reader, { id: added.id }), { code: 'forbidden_scope' });
    const deleted = await deps.bus.call(recallRpc.deleteDocument, otherOrg, { id: added.id });
    assert.equal(deleted.deleted, true);
  });
});
