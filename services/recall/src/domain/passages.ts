// Splitting a document into passages: the unit recall ranks, quotes and cites. Passages follow the text's
// own structure (paragraphs, then sentences) so a snippet never starts mid-thought.

export interface PassageLimits {
  /** A passage grows by whole paragraphs up to about this many characters. */
  targetChars: number;
  /** No passage is longer than this; longer paragraphs are split by sentences, then by words. */
  maxChars: number;
}

export const defaultPassageLimits: PassageLimits = { targetChars: 700, maxChars: 1_200 };

function splitLong(paragraph: string, maxChars: number): string[] {
  if (paragraph.length <= maxChars) return [paragraph];
  const sentences = paragraph.match(/[^.!?。！？]+(?:[.!?。！？]+["')\]]*\s*|$)/gu) ?? [paragraph];
  const pieces: string[] = [];
  let current = '';
  for (const sentence of sentences) {
    if (sentence.length > maxChars) {
      if (current.trim()) pieces.push(current.trim());
      current = '';
      // A "sentence" longer than a passage (a table, a list without stops): cut between words.
      let rest = sentence;
      while (rest.length > maxChars) {
        const cut = rest.lastIndexOf(' ', maxChars);
        const at = cut > maxChars / 2 ? cut : maxChars;
        pieces.push(rest.slice(0, at).trim());
        rest = rest.slice(at);
      }
      current = rest;
    } else if (current.length + sentence.length > maxChars) {
      pieces.push(current.trim());
      current = sentence;
    } else {
      current += sentence;
    }
  }
  if (current.trim()) pieces.push(current.trim());
  return pieces.filter((piece) => piece !== '');
}

/** The passages of a text, in order. Whitespace inside a paragraph is collapsed; empty text has none. */
export function splitIntoPassages(text: string, limits: PassageLimits = defaultPassageLimits): string[] {
  const paragraphs = text
    .replace(/\r\n?/g, '\n')
    .split(/\n\s*\n/)
    .map((paragraph) => paragraph.replace(/\s+/g, ' ').trim())
    .filter((paragraph) => paragraph !== '')
    .flatMap((paragraph) => splitLong(paragraph, limits.maxChars));
  const passages: string[] = [];
  let current = '';
  for (const paragraph of paragraphs) {
    if (current === '') current = paragraph;
    else if (current.length + 2 + paragraph.length <= limits.targetChars) current = `${current}\n\n${paragraph}`;
    else {
      passages.push(current);
      current = paragraph;
    }
  }
  if (current !== '') passages.push(current);
  return passages;
}
