// The Knowledge and Brand score pages through the gateway, with the real recall service (its model providers
// local servers speaking OpenAI's and Anthropic's protocols) and mcp (the approvals count every page shows):
// documents paged, added once per form, edited and deleted after a confirmation page; a question answered with
// citations linking to the documents; a brand scored. Members read and score but change nothing; another
// organization's documents are 404 everywhere; every malformed input is a 4xx page and writes nothing.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type Platform, startPlatform } from '@voice/gateway/testing';
import { consoleDocumentBodyLimitBytes, knowledgeLimits } from '@voice/proto';
import { Browser, invitePerson } from './support/harness.js';
import { type FakeRecallProviders, groundedAnswer, knownBrand, startFakeRecallProviders } from './support/recall.js';
import { follow, formKeyOf } from './support/telephony-data.js';

const knowledge = '/dashboard/knowledge';
const documentIdOf = (location: unknown) => /\/dashboard\/knowledge\/(doc_[0-9A-Za-z]+)$/.exec(String(location))?.[1];
const idsIn = (body: string) => [...body.matchAll(/<tr id="document-(doc_[0-9A-Za-z]+)"/g)].map((match) => match[1] as string);
const hours = `Our support team answers phone calls from 8am to 6pm, Monday to Friday.

Outside those hours the voice agent takes a message and a human calls back the next business day.`;

describe('the knowledge and brand score pages, through the gateway', () => {
  let platform: Platform<'recall' | 'mcp' | 'console'>;
  let providers: FakeRecallProviders;

  before(async () => {
    providers = await startFakeRecallProviders();
    platform = await startPlatform({ services: ['recall', 'mcp', 'console'], recall: providers.env });
  });
  after(async () => {
    await platform?.close();
    await providers?.close();
  });

  async function signedIn(orgId: string, role: 'owner' | 'admin' | 'member') {
    const person = await invitePerson(platform.console.deps, orgId, role);
    const browser = new Browser(platform.gateway.app, '198.51.100.33');
    const response = await browser.signIn(person.email, person.password);
    assert.equal(response.statusCode, 303, response.body);
    return Object.assign(browser, { userId: person.userId });
  }
  const documentsOf = (orgId: string) => platform.recall.deps.prisma.document.findMany({ where: { orgId }, orderBy: { createdAt: 'asc' } });
  const consoleActions = (orgId: string) =>
    platform.gateway.deps.prisma.auditRecord.findMany({ where: { orgId, actorType: 'user' }, orderBy: { createdAt: 'asc' } });

  /** Adds a document through the form, as a person would; answers the POST. */
  async function addDocument(browser: Browser, fields: Record<string, string>) {
    const form = await browser.get(`${knowledge}/new`);
    assert.equal(form.statusCode, 200, form.body);
    return browser.post(knowledge, { form_key: formKeyOf(form.body), ...fields });
  }

  test('an owner adds a document by pasting it (twice submitted, once added), reads it, edits it, asks a question and follows the citation, then deletes it after a confirmation', async () => {
    const { orgId } = await platform.org();
    const owner = await signedIn(orgId, 'owner');
    const empty = await owner.get(knowledge);
    assert.equal(empty.statusCode, 200, empty.body);
    assert.match(empty.body, /<a href="\/dashboard\/knowledge" aria-current="page">Knowledge<\/a>/);
    assert.match(empty.body, /<a href="\/dashboard\/brand-score" >Brand score<\/a>/);
    assert.match(empty.body, /id="knowledge-empty">The knowledge base is empty\./);

    const form = await owner.get(`${knowledge}/new`);
    const fields = { form_key: formKeyOf(form.body), title: 'Support hours', text: hours, source_url: 'https://example.com/hours' };
    // A double click: both submits of one form lead to the same document.
    const [first, second] = await Promise.all([owner.post(knowledge, fields), owner.post(knowledge, fields)]);
    assert.equal(first.statusCode, 303, first.body);
    assert.equal(second.statusCode, 303, second.body);
    const id = documentIdOf(first.headers.location);
    assert.ok(id, String(first.headers.location));
    assert.equal(documentIdOf(second.headers.location), id);
    const again = await owner.post(knowledge, fields);
    assert.equal(documentIdOf(again.headers.location), id, 'a later resubmit of the same form adds nothing');
    assert.equal((await documentsOf(orgId)).length, 1);

    const page = await owner.get(`${knowledge}/${id}`);
    assert.equal(page.statusCode, 200, page.body);
    assert.match(page.body, /<p class="toast" role="status">Document added to the knowledge base\.<\/p>/);
    assert.match(page.body, /<h1>Support hours<\/h1>/);
    assert.match(page.body, /<pre class="document-text" id="document-text" tabindex="0">Our support team answers phone calls/);
    assert.match(page.body, /<a href="https:\/\/example\.com\/hours" rel="noopener noreferrer">/);
    const list = await owner.get(knowledge);
    assert.deepEqual(idsIn(list.body), [id]);
    assert.match(list.body, new RegExp(`<a href="/dashboard/knowledge/${id}">Support hours</a>`));

    // Edit: the title changes, the source is removed (an empty field), the text is replaced.
    const edit = await follow(owner, page.body, 'document-edit');
    assert.equal(edit.statusCode, 200, edit.body);
    assert.match(edit.body, /<textarea id="document-text" name="text"[^>]*>Our support team/);
    const saved = await owner.post(`${knowledge}/${id}`, { title: 'Support hours (updated)', text: hours, source_url: '' });
    assert.equal(saved.statusCode, 303, saved.body);
    const updated = await platform.recall.deps.prisma.document.findUniqueOrThrow({ where: { id } });
    assert.equal(updated.title, 'Support hours (updated)');
    assert.equal(updated.sourceUrl, null);
    assert.match((await owner.get(`${knowledge}/${id}`)).body, /Document saved\./);

    // A question: the answer's [1] links to the document recall found; the sources list it with its snippet.
    const asked = await owner.get(`${knowledge}/ask?q=${encodeURIComponent('When do you answer phone calls?')}`);
    assert.equal(asked.statusCode, 200, asked.body);
    assert.match(
      asked.body,
      /Calls are answered from 8am to 6pm on weekdays <a href="\/dashboard\/knowledge\/doc_[0-9A-Za-z]+" class="citation"/,
    );
    assert.ok(asked.body.includes(groundedAnswer.slice(0, 20)));
    assert.match(asked.body, /class="citation" aria-label="Source 1: Support hours \(updated\)">\[1\]<\/a>/);
    assert.ok(asked.body.includes(`<a href="/dashboard/knowledge/${id}" class="citation"`), 'the citation links to the document');
    assert.match(asked.body, /<mark>[a-z]+<\/mark>/i, 'matched words are marked, not raw <b>');
    assert.doesNotMatch(asked.body, /&lt;b&gt;/);
    assert.match(asked.body, /Answered by openai \(gpt-test\)\./);

    const confirm = await follow(owner, page.body, 'document-delete');
    assert.equal(confirm.statusCode, 200, confirm.body);
    assert.match(confirm.body, /<h1>Delete “Support hours \(updated\)”\?<\/h1>/);
    assert.match(confirm.body, new RegExp(`<form method="post" action="/dashboard/knowledge/${id}/delete"`));
    const deleted = await owner.post(`${knowledge}/${id}/delete`, {});
    assert.equal(deleted.statusCode, 303, deleted.body);
    assert.equal(deleted.headers.location, knowledge);
    assert.match((await owner.get(knowledge)).body, /Document deleted\./);
    assert.equal((await documentsOf(orgId)).length, 0);
    assert.equal((await owner.get(`${knowledge}/${id}`)).statusCode, 404);
    assert.equal((await owner.post(`${knowledge}/${id}/delete`, {})).statusCode, 404, 'deleting again: gone');

    // Each change is in the audit log with the person as actor.
    const actions = (await consoleActions(orgId)).map((record) => `${record.path} ${record.status}`);
    assert.ok(actions.includes('/dashboard/knowledge 201'), actions.join(', '));
    assert.ok(actions.includes(`/dashboard/knowledge/${id} 200`), actions.join(', '));
    assert.ok(actions.includes(`/dashboard/knowledge/${id}/delete 200`), actions.join(', '));
  });

  test('the list pages by keyset: 25 newest first, Older, then Newest back', async () => {
    const { orgId, key } = await platform.org();
    const owner = await signedIn(orgId, 'owner');
    const ids: string[] = [];
    // Through the API with the organization's key, one after another, so their order is known.
    for (let n = 0; n < 27; n++) {
      const added = await platform.gateway.app.inject({
        method: 'POST',
        url: '/api/v1/knowledge/documents',
        headers: { authorization: `Bearer ${key}` },
        payload: { title: `Document ${n}`, text: `Text number ${n}.` },
      });
      assert.equal(added.statusCode, 201, added.body);
      ids.push(added.json().id);
    }
    const first = await owner.get(knowledge);
    const newestFirst = [...ids].reverse();
    assert.deepEqual(idsIn(first.body), newestFirst.slice(0, 25));
    const older = await follow(owner, first.body, 'documents-older');
    assert.equal(older.statusCode, 200, older.body);
    assert.deepEqual(idsIn(older.body), newestFirst.slice(25));
    assert.match(older.body, /<a href="\/dashboard\/knowledge" class="button">Newest<\/a>/);
    assert.doesNotMatch(older.body, /id="documents-older"/);
    const damaged = await owner.get(`${knowledge}?cursor=garbage`);
    assert.equal(damaged.statusCode, 400, damaged.body);
    assert.equal((await owner.get(`${knowledge}?cursor=${'x'.repeat(600)}`)).statusCode, 400);
    assert.equal((await owner.get(`${knowledge}?cursor=a&cursor=b`)).statusCode, 400);
  });

  test('refusals appear on their fields and add nothing; a form without its key, an oversize body and a NUL are refused', async () => {
    const { orgId } = await platform.org();
    const owner = await signedIn(orgId, 'owner');
    const cases: Array<[Record<string, string>, RegExp]> = [
      [{ title: '', text: 'Some text' }, /id="document-title-error" class="field-error">Give the document a title/],
      [{ title: 'x'.repeat(knowledgeLimits.titleMaxLength + 1), text: 'Some text' }, /id="document-title-error"/],
      [{ title: 'Title', text: '   ' }, /id="document-text-error" class="field-error">Paste the document’s text/],
      [
        { title: 'Title', text: 'x'.repeat(knowledgeLimits.textMaxLength + 1) },
        /id="document-text-error" class="field-error">The text is longer than 200,000/,
      ],
      [
        { title: 'Title', text: 'Some text', source_url: 'ftp://example.com/file' },
        /id="document-source-url-error" class="field-error">Enter the source as an http/,
      ],
      [{ title: 'Title', text: 'Some text', source_url: 'javascript:alert(1)' }, /id="document-source-url-error"/],
    ];
    for (const [fields, error] of cases) {
      const refused = await addDocument(owner, fields);
      assert.equal(refused.statusCode, 400, `${JSON.stringify(fields).slice(0, 80)}: ${refused.body.slice(0, 300)}`);
      assert.match(refused.body, error);
      assert.match(refused.body, /aria-invalid="true"/);
      // What was typed stays in the form (the title at least).
      if (fields.title === 'Title') assert.match(refused.body, /id="document-title" name="title" type="text" value="Title"/);
    }
    // A NUL (a binary file's text) is refused before any page sees the form.
    const binary = await addDocument(owner, { title: 'Title', text: 'binary\u0000file' });
    assert.equal(binary.statusCode, 400);
    assert.match(binary.body, /text contains a NUL character/);
    const noKey = await owner.post(knowledge, { title: 'Title', text: 'Some text' });
    assert.equal(noKey.statusCode, 400);
    assert.match(noKey.body, /reload the page and add the document again/);
    // A document within the API's limit of multi-byte characters fits the form's body limit…
    const wide = await addDocument(owner, { title: 'Wide', text: '語'.repeat(knowledgeLimits.textMaxLength) });
    assert.equal(wide.statusCode, 303, wide.body.slice(0, 300));
    // …and anything larger than that is a 413 page.
    const huge = await addDocument(owner, { title: 'Huge', text: 'x'.repeat(consoleDocumentBodyLimitBytes) });
    assert.equal(huge.statusCode, 413);
    assert.deepEqual(
      (await documentsOf(orgId)).map((document) => document.title),
      ['Wide'],
    );
    // Other forms keep their small limit.
    const bigSignIn = await owner.post('/dashboard/organization', { org_id: 'x'.repeat(70 * 1024) });
    assert.equal(bigSignIn.statusCode, 413);

    const question = await owner.get(`${knowledge}/ask?q=${'x'.repeat(knowledgeLimits.queryMaxLength + 1)}`);
    assert.equal(question.statusCode, 400);
    assert.match(question.body, /id="ask-question-error" class="field-error">Ask in at most 1,000 characters\./);
    const blank = await owner.get(`${knowledge}/ask?q=+`);
    assert.equal(blank.statusCode, 200);
    assert.doesNotMatch(blank.body, /id="answer/);
    const nothing = await owner.get(`${knowledge}/ask?q=${encodeURIComponent('zebra quantum')}`);
    assert.match(nothing.body, /id="answer-none">No passage of your documents matches this question/);
  });

  test('uploading a .txt or .md file adds it once per form (its name the title when none is given); other files, larger ones and broken forms are 4xx pages that add nothing', async () => {
    const { orgId } = await platform.org();
    const owner = await signedIn(orgId, 'owner');
    const uploadKey = async () => {
      const page = await owner.get(`${knowledge}/new`);
      const keys = [...page.body.matchAll(/name="form_key" value="([^"]+)"/g)].map((match) => match[1] as string);
      assert.equal(keys.length, 2, 'one key for the paste form, one for the upload form');
      assert.match(page.body, /<form method="post" action="\/dashboard\/knowledge\/upload" enctype="multipart\/form-data"/);
      return keys[1] as string;
    };
    const upload = (key: string, file: File | undefined, fields: Record<string, string> = {}) => {
      const form = new FormData();
      form.set('form_key', key);
      for (const [name, value] of Object.entries(fields)) form.set(name, value);
      if (file) form.set('file', file);
      return owner.postMultipart(`${knowledge}/upload`, form);
    };

    const key = await uploadKey();
    const markdown = new File(['# Returns\n\nReturns are accepted within **30 days**.'], 'returns-policy.md', { type: 'text/markdown' });
    const [first, second] = await Promise.all([upload(key, markdown), upload(key, markdown)]);
    assert.equal(first.statusCode, 303, first.body.slice(0, 400));
    const id = documentIdOf(first.headers.location);
    assert.ok(id);
    assert.equal(documentIdOf(second.headers.location), id, 'a double submit uploads once');
    const [stored] = await documentsOf(orgId);
    assert.equal(stored?.title, 'returns-policy');
    assert.equal(stored?.text, '# Returns\n\nReturns are accepted within **30 days**.');

    const text = new File(['Shipping takes three days.'], 'shipping.txt', { type: 'text/plain' });
    const titled = await upload(await uploadKey(), text, { title: 'Shipping', source_url: 'https://example.com/shipping' });
    assert.equal(titled.statusCode, 303, titled.body.slice(0, 400));
    const shipping = await platform.recall.deps.prisma.document.findUniqueOrThrow({ where: { id: documentIdOf(titled.headers.location) } });
    assert.deepEqual([shipping.title, shipping.sourceUrl], ['Shipping', 'https://example.com/shipping']);

    const refusals: Array<[string, File | undefined, Record<string, string>, number, RegExp]> = [
      [
        'a PDF',
        new File(['%PDF-1.4'], 'manual.pdf', { type: 'application/pdf' }),
        {},
        400,
        /Upload a text \(\.txt\) or Markdown \(\.md\) file/,
      ],
      ['an image named .txt', new File(['GIF89a'], 'photo.txt', { type: 'image/gif' }), {}, 400, /Upload a text/],
      ['not UTF-8', new File([new Uint8Array([0xff, 0xfe, 0x41])], 'latin.txt', { type: 'text/plain' }), {}, 400, /not text in UTF-8/],
      [
        'too large',
        new File(['x'.repeat(knowledgeLimits.textMaxLength * 4 + 1)], 'big.txt', { type: 'text/plain' }),
        {},
        413,
        /The file is larger than 800 kB/,
      ],
      ['no file', undefined, {}, 400, /Choose a text \(\.txt\) or Markdown \(\.md\) file/],
      [
        'an empty file',
        new File(['  '], 'empty.txt', { type: 'text/plain' }),
        {},
        400,
        /id="upload-file-error" class="field-error">The file holds no text/,
      ],
      [
        'too many characters',
        new File(['x'.repeat(knowledgeLimits.textMaxLength + 1)], 'long.txt', { type: 'text/plain' }),
        {},
        400,
        /id="upload-file-error" class="field-error">The text is longer than 200,000/,
      ],
      [
        'a bad source',
        new File(['Fine text.'], 'fine.txt', { type: 'text/plain' }),
        { source_url: 'ftp://x' },
        400,
        /id="upload-source-url-error"/,
      ],
    ];
    for (const [what, file, fields, status, words] of refusals) {
      const refused = await upload(await uploadKey(), file, fields);
      assert.equal(refused.statusCode, status, `${what}: ${refused.body.slice(0, 400)}`);
      assert.match(refused.body, words, what);
    }
    const twoFiles = new FormData();
    twoFiles.set('form_key', await uploadKey());
    twoFiles.append('file', text);
    twoFiles.append('other', text);
    assert.equal((await owner.postMultipart(`${knowledge}/upload`, twoFiles)).statusCode, 413, 'a second file');
    const noKey = await upload('', text);
    assert.equal(noKey.statusCode, 400);
    assert.match(noKey.body, /reload the page and upload the file again/);
    // A broken multipart body (cut short) and a multipart post to another page.
    await owner.get(`${knowledge}/new`);
    const cut = await platform.gateway.app.inject({
      method: 'POST',
      url: `${knowledge}/upload`,
      headers: {
        cookie: [...owner.cookies].map(([name, value]) => `${name}=${value}`).join('; '),
        'content-type': 'multipart/form-data; boundary=xyz',
      },
      payload: '--xyz\r\nContent-Disposition: form-data; name="file"; filename="a.txt"\r\nContent-Type: text/plain\r\n\r\nhalf',
    });
    assert.ok(cut.statusCode >= 400 && cut.statusCode < 500, `cut short: ${cut.statusCode}`);
    const elsewhere = new FormData();
    elsewhere.set('title', 'x');
    assert.equal((await owner.postMultipart(knowledge, elsewhere)).statusCode, 400, 'only the upload route takes multipart');
    assert.deepEqual((await documentsOf(orgId)).map((document) => document.title).sort(), ['Shipping', 'returns-policy']);

    // A member's upload is refused like any write.
    const member = await signedIn(orgId, 'member');
    await member.get(knowledge);
    const form = new FormData();
    form.set('form_key', 'k'.repeat(43));
    form.set('file', text);
    assert.equal((await member.postMultipart(`${knowledge}/upload`, form)).statusCode, 403);
    assert.equal((await documentsOf(orgId)).length, 2);
  });

  test('another organization’s document is 404 on every page and action; malformed ids are 404 too', async () => {
    const theirs = await platform.org();
    const theirOwner = await signedIn(theirs.orgId, 'owner');
    const added = await addDocument(theirOwner, { title: 'Their secret', text: 'Their private text.' });
    const theirId = documentIdOf(added.headers.location);
    assert.ok(theirId);
    const { orgId } = await platform.org();
    const owner = await signedIn(orgId, 'owner');
    for (const id of [theirId, 'doc_0000000000000000', 'doc_', 'not-an-id', `doc_${'a'.repeat(60)}`]) {
      for (const path of [`${knowledge}/${id}`, `${knowledge}/${id}/edit`, `${knowledge}/${id}/delete`]) {
        const page = await owner.get(path);
        assert.equal(page.statusCode, 404, `${path}: ${page.statusCode}`);
        assert.doesNotMatch(page.body, /Their secret|Their private text/);
      }
      assert.equal((await owner.post(`${knowledge}/${id}`, { title: 'Mine', text: 'Mine now' })).statusCode, 404);
      assert.equal((await owner.post(`${knowledge}/${id}/delete`, {})).statusCode, 404);
    }
    assert.doesNotMatch((await owner.get(knowledge)).body, /Their secret/);
    const asked = await owner.get(`${knowledge}/ask?q=${encodeURIComponent('their private text')}`);
    assert.doesNotMatch(asked.body, /Their secret|Their private/);
    const [document] = await documentsOf(theirs.orgId);
    assert.equal(document?.title, 'Their secret', 'untouched');
  });

  test('a member reads, asks and scores, but every write is refused, even a hand-made POST', async () => {
    const { orgId } = await platform.org();
    const owner = await signedIn(orgId, 'owner');
    const id = documentIdOf((await addDocument(owner, { title: 'Refunds', text: 'Refunds take five business days.' })).headers.location);
    assert.ok(id);
    const member = await signedIn(orgId, 'member');
    const list = await member.get(knowledge);
    assert.equal(list.statusCode, 200);
    assert.doesNotMatch(list.body, /id="knowledge-add"/);
    const page = await member.get(`${knowledge}/${id}`);
    assert.equal(page.statusCode, 200);
    assert.doesNotMatch(page.body, /id="document-edit"|id="document-delete"/);
    for (const path of [`${knowledge}/new`, `${knowledge}/${id}/edit`, `${knowledge}/${id}/delete`]) {
      assert.equal((await member.get(path)).statusCode, 403, path);
    }
    await member.get(knowledge);
    const writes: Array<[string, Record<string, string>]> = [
      [knowledge, { form_key: 'k'.repeat(43), title: 'Member doc', text: 'Nope' }],
      [`${knowledge}/${id}`, { title: 'Changed', text: 'Changed' }],
      [`${knowledge}/${id}/delete`, {}],
    ];
    for (const [path, fields] of writes) assert.equal((await member.post(path, fields)).statusCode, 403, path);
    const documents = await documentsOf(orgId);
    assert.deepEqual(
      documents.map((document) => document.title),
      ['Refunds'],
    );
    assert.equal((await member.get(`${knowledge}/ask?q=refunds`)).statusCode, 200);
    await member.get('/dashboard/brand-score');
    const scored = await member.post('/dashboard/brand-score', { brand: knownBrand, url: 'https://acmevoice.example/' });
    assert.equal(scored.statusCode, 200, scored.body.slice(0, 300));
  });

  test('earlier brand scores: newest first, 25 a page with Older, kept per organization, for members too', async () => {
    const { orgId } = await platform.org();
    const other = await platform.org();
    const month = 30 * 24 * 3_600_000;
    // A year of monthly scores, rising, and one of another organization.
    const rows = Array.from({ length: 27 }, (_, n) => ({
      id: `bsc_${String(n).padStart(12, '0')}`,
      orgId,
      brand: knownBrand,
      url: 'https://acmevoice.example/',
      score: 40 + n,
      verdict: 'emerging',
      partial: n === 0,
      createdAt: new Date(Date.now() - (27 - n) * month),
    }));
    await platform.recall.deps.prisma.brandScore.createMany({
      data: [...rows, { ...rows[0], id: 'bsc_theirs000000', orgId: other.orgId, brand: 'Their brand' }] as typeof rows,
    });
    const member = await signedIn(orgId, 'member');
    const first = await member.get('/dashboard/brand-score');
    assert.equal(first.statusCode, 200, first.body.slice(0, 300));
    const scoreIds = (body: string) => [...body.matchAll(/<tr id="score-(bsc_[0-9A-Za-z]+)">/g)].map((match) => match[1]);
    const newestFirst = rows.map((row) => row.id).reverse();
    assert.deepEqual(scoreIds(first.body), newestFirst.slice(0, 25));
    assert.doesNotMatch(first.body, /Their brand/);
    const older = await follow(member, first.body, 'brand-history-older');
    assert.deepEqual(scoreIds(older.body), newestFirst.slice(25));
    assert.match(older.body, /one provider/);
    assert.equal((await member.get('/dashboard/brand-score?cursor=garbage')).statusCode, 400);
    const empty = await signedIn((await platform.org()).orgId, 'owner');
    assert.match((await empty.get('/dashboard/brand-score')).body, /id="brand-history-empty">No brand scored yet\./);
  });

  test('a brand scored: the card with its score, verdict, zinger, each provider’s probe and recommendations; refusals on their fields', async () => {
    const { orgId } = await platform.org();
    const owner = await signedIn(orgId, 'owner');
    const form = await owner.get('/dashboard/brand-score');
    assert.equal(form.statusCode, 200);
    assert.match(form.body, /<a href="\/dashboard\/brand-score" aria-current="page">Brand score<\/a>/);
    const scored = await owner.post('/dashboard/brand-score', { brand: knownBrand, url: 'https://acmevoice.example/' });
    assert.equal(scored.statusCode, 200, scored.body.slice(0, 500));
    assert.match(scored.body, /<p class="card-figure" id="brand-score-figure">98<span class="muted"> \/ 100<\/span><\/p>/);
    assert.match(scored.body, /id="brand-verdict">prominent<\/span>/);
    assert.match(scored.body, /<p class="zinger" id="brand-zinger">[^<]+<\/p>/);
    assert.match(scored.body, /<article class="panel probe" id="probe-openai"/);
    assert.match(scored.body, /<article class="panel probe" id="probe-anthropic"/);
    assert.match(scored.body, /OpenAI <span class="muted">gpt-test<\/span>/);
    assert.match(scored.body, /Anthropic <span class="muted">claude-test<\/span>/);
    assert.match(scored.body, /Named #1 among 3 brands of “AI voice agents”/);
    assert.match(scored.body, /<h3>Recommendations<\/h3>/);
    // The form stays for another try, with the brand typed; the score is first among the earlier ones.
    assert.match(scored.body, /id="brand-name" name="brand" type="text" value="Acme Voice"/);
    const [kept] = await platform.recall.deps.prisma.brandScore.findMany({ where: { orgId } });
    assert.ok(kept);
    assert.deepEqual(
      [kept.brand, kept.url, kept.score, kept.verdict, kept.partial],
      [knownBrand, 'https://acmevoice.example/', 98, 'prominent', false],
    );
    assert.match(
      scored.body,
      new RegExp(`<tr id="score-${kept.id}">[\\s\\S]*?<th scope="row">Acme Voice</th>[\\s\\S]*?<td class="numeric">98</td>`),
    );

    const refusals: Array<[Record<string, string>, RegExp]> = [
      [{ brand: '', url: 'https://acmevoice.example/' }, /id="brand-name-error" class="field-error">Enter the brand’s name/],
      [{ brand: 'x'.repeat(knowledgeLimits.brandMaxLength + 1), url: 'https://acmevoice.example/' }, /id="brand-name-error"/],
      [{ brand: 'Acme', url: 'not a url' }, /id="brand-url-error" class="field-error">Enter the brand’s website/],
      [{ brand: 'Acme', url: 'file:///etc/passwd' }, /id="brand-url-error"/],
      [{ brand: 'Acme' }, /id="brand-url-error"/],
    ];
    const before = providers.openai.requests.length;
    for (const [fields, error] of refusals) {
      const refused = await owner.post('/dashboard/brand-score', fields);
      assert.equal(refused.statusCode, 400, JSON.stringify(fields));
      assert.match(refused.body, error);
    }
    assert.equal(providers.openai.requests.length, before, 'no refused form asked a model');
    const noToken = await owner.post('/dashboard/brand-score', { brand: knownBrand, url: 'https://acmevoice.example/' }, { csrf: false });
    assert.equal(noToken.statusCode, 403);
  });
});
