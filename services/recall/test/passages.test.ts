import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { readPage } from '../src/domain/html.js';
import { splitIntoPassages } from '../src/domain/passages.js';
import { fuzzyWords, highlight, queryWords } from '../src/store/search.js';

describe('splitting documents into passages', () => {
  test('short paragraphs are merged up to the target, in order', () => {
    const passages = splitIntoPassages('One.\n\nTwo.\r\n\r\nThree.', { targetChars: 12, maxChars: 50 });
    assert.deepEqual(passages, ['One.\n\nTwo.', 'Three.']);
  });

  test('a long paragraph is split by sentences and no passage exceeds the maximum', () => {
    const sentence = 'This sentence has exactly forty-four chars. ';
    const text = sentence.repeat(100);
    const passages = splitIntoPassages(text, { targetChars: 300, maxChars: 400 });
    assert.ok(passages.length > 1);
    assert.ok(passages.every((passage) => passage.length <= 400));
    assert.ok(passages.every((passage) => passage.endsWith('.')));
    assert.equal(passages.join(' ').replace(/\s+/g, ' '), text.trim());
  });

  test('a run without sentence stops is cut between words', () => {
    const passages = splitIntoPassages('word '.repeat(500), { targetChars: 100, maxChars: 120 });
    assert.ok(passages.every((passage) => passage.length <= 120 && !passage.startsWith(' ')));
    assert.equal(passages.join(' ').split(' ').length, 500);
  });

  test('empty text has no passages', () => {
    assert.deepEqual(splitIntoPassages(' \n\n \n'), []);
  });
});

describe('query words', () => {
  test('words are lowercased, split on punctuation and deduplicated; only longer ones go to trigrams', () => {
    const words = queryWords('When does the Support team pick up the phone? Support!');
    assert.deepEqual(words, ['when', 'does', 'the', 'support', 'team', 'pick', 'up', 'phone']);
    assert.deepEqual(fuzzyWords(words), ['when', 'does', 'support', 'team', 'pick', 'phone']);
  });
});

describe('snippets', () => {
  test('passage text is escaped and only the matches become <b>', () => {
    assert.equal(highlight('Use \u0002<script>\u0003 & "quotes"'), 'Use <b>&lt;script&gt;</b> &amp; &quot;quotes&quot;');
  });
});

describe('reading a page head', () => {
  test('title, description, Open Graph, canonical, language and JSON-LD are found', () => {
    const page = readPage(
      `<!doctype html><html lang="en"><head>
        <title> Acme &amp; Co — Voice agents </title>
        <meta name="description" content="AI receptionists for clinics">
        <meta property="og:title" content="Acme"><meta property='og:image' content='/og.png'>
        <meta name="viewport" content="width=device-width">
        <link rel="canonical" href="https://acme.example/">
        <script type="application/ld+json">{"@context":"https://schema.org","@type":"Organization","name":"Acme"}</script>
      </head><body><h1>Hi</h1></body></html>`,
      { url: 'https://acme.example/', status: 200 },
    );
    assert.equal(page.title, 'Acme & Co — Voice agents');
    assert.equal(page.metaDescription, 'AI receptionists for clinics');
    assert.deepEqual(page.openGraph, { title: true, description: false, image: true });
    assert.equal(page.canonical, 'https://acme.example/');
    assert.equal(page.lang, 'en');
    assert.equal(page.h1Count, 1);
    assert.equal(page.hasViewport, true);
    assert.equal(page.hasOrganizationJsonLd, true);
    assert.equal(page.noindex, false);
  });
});
