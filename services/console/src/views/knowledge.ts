import { type DocumentListItem, type KnowledgeDocument, knowledgeLimits, type Page, type RecallResponse } from '@voice/proto';
import { canManage } from '../domain/roles.js';
import type { SignedIn } from '../domain/sessions.js';
import { dataTable, emptyState, type FieldErrors, field, formatFor, pageHeader, pager, time } from './components.js';
import { confirmPage } from './confirm.js';
import { type Html, html } from './html.js';
import { csrfField, notice, page } from './layout.js';

export const knowledgePath = '/dashboard/knowledge';
export const newDocumentPath = `${knowledgePath}/new`;
export const askPath = `${knowledgePath}/ask`;
export const uploadPath = `${knowledgePath}/upload`;
export const documentHref = (id: string) => `${knowledgePath}/${encodeURIComponent(id)}`;
export const editDocumentHref = (id: string) => `${documentHref(id)}/edit`;
export const deleteDocumentHref = (id: string) => `${documentHref(id)}/delete`;
const listHref = (cursor?: string | null) => (cursor ? `${knowledgePath}?${new URLSearchParams({ cursor })}` : knowledgePath);

const actions = (signedIn: SignedIn) =>
  html`<a id="knowledge-ask" href="${askPath}" class="button">Ask a question</a>${
    canManage(signedIn.role) ? html`<a id="knowledge-add" href="${newDocumentPath}" class="button primary">Add a document</a>` : ''
  }`;

/** The knowledge base's documents, newest first, a page at a time. */
export function knowledgeListPage(signedIn: SignedIn, view: { documents: Page<DocumentListItem>; firstPage: boolean }) {
  const format = formatFor(signedIn);
  const { documents } = view;
  return page({
    title: 'Knowledge',
    signedIn,
    path: knowledgePath,
    body: html`${pageHeader({
      title: 'Knowledge',
      lead: 'The documents your agents answer from: recall finds their passages, and answers cite them.',
      actions: actions(signedIn),
    })}
      ${
        documents.data.length === 0
          ? emptyState({
              id: 'knowledge-empty',
              title: view.firstPage ? 'The knowledge base is empty.' : 'No older documents.',
              next: canManage(signedIn.role)
                ? html`<a href="${newDocumentPath}">Add a document</a>: paste text or upload a text or Markdown file.`
                : 'Owners and admins add documents here; agents can add them through the API and MCP.',
            })
          : dataTable({
              id: 'documents',
              caption: 'Documents of the knowledge base, newest first',
              captionHidden: true,
              head: html`<th scope="col">Title</th><th scope="col">Characters</th><th scope="col">Passages</th><th scope="col">Source</th><th scope="col">Updated</th>`,
              rows: documents.data.map(
                (document) => html`<tr id="document-${document.id}">
                  <th scope="row"><a href="${documentHref(document.id)}">${document.title}</a></th>
                  <td class="numeric">${format.number(document.characters)}</td>
                  <td class="numeric">${format.number(document.passage_count)}</td>
                  <td>${document.source_url ? html`<code>${document.source_url}</code>` : html`<span class="muted">none</span>`}</td>
                  <td class="nowrap">${time(format, document.updated_at)}</td>
                </tr>`,
              ),
            })
      }
      ${pager({
        label: 'Pages of the knowledge base',
        newest: view.firstPage ? undefined : listHref(),
        older: documents.next_cursor
          ? { href: listHref(documents.next_cursor), id: 'documents-older', text: 'Older documents' }
          : undefined,
      })}`,
  });
}

/** What a person typed in a document form, with the operation's refusals by field. */
export interface DocumentForm {
  title?: string | undefined;
  source_url?: string | undefined;
  text?: string | undefined;
  errors?: FieldErrors;
  error?: string | undefined;
}

/** Where a document comes from: an optional address, shown with the document and its recalled passages. */
const sourceField = (id: string, form: { source_url?: string | undefined; errors?: FieldErrors }) =>
  field({
    id,
    name: 'source_url',
    label: 'Source address (optional)',
    type: 'url',
    value: form.source_url ?? '',
    hint: 'Where the text comes from (http or https); answers link to it.',
    error: form.errors?.source_url,
    attributes: html`maxlength="${knowledgeLimits.urlMaxLength}"`,
  });

function documentFields(form: DocumentForm, textRequired: boolean): Html {
  return html`${field({
    id: 'document-title',
    name: 'title',
    label: 'Title',
    value: form.title ?? '',
    hint: 'Shown with every passage recall finds in it.',
    error: form.errors?.title,
    attributes: html`required maxlength="${knowledgeLimits.titleMaxLength}"`,
  })}
    ${sourceField('document-source-url', form)}
    ${field({
      id: 'document-text',
      name: 'text',
      label: 'Text',
      hint: `Plain text or Markdown, up to ${knowledgeLimits.textMaxLength.toLocaleString('en')} characters; split longer sources into several documents.`,
      error: form.errors?.text,
      control: (describedBy, invalid) =>
        html`<textarea id="document-text" name="text" rows="14" maxlength="${knowledgeLimits.textMaxLength}"${textRequired ? html` required` : ''}${describedBy ? html` aria-describedby="${describedBy}"` : ''}${invalid ? html` aria-invalid="true"` : ''}>${form.text ?? ''}</textarea>`,
    })}`;
}

/** The largest file the upload form takes (`routes/knowledge.ts` holds the parser to it). */
export const uploadMaxBytes = knowledgeLimits.textMaxLength * 4;

/** The upload form's state: the file's text, if refused, is not sent back (a file input cannot be filled). */
export interface UploadForm {
  title?: string | undefined;
  source_url?: string | undefined;
  errors?: FieldErrors;
}

function uploadForm(signedIn: SignedIn, form: UploadForm & { formKey: string }): Html {
  return html`<section class="panel" aria-labelledby="upload-heading">
    <h2 id="upload-heading">Upload a file</h2>
    <form method="post" action="${uploadPath}" enctype="multipart/form-data" class="stack">
      ${csrfField(signedIn.csrfToken)}
      <input type="hidden" name="form_key" value="${form.formKey}">
      ${field({
        id: 'upload-file',
        name: 'file',
        label: 'File',
        type: 'file',
        hint: `A text (.txt) or Markdown (.md) file in UTF-8, up to ${knowledgeLimits.textMaxLength.toLocaleString('en')} characters.`,
        error: form.errors?.file,
        attributes: html`required accept=".txt,.md,.markdown,text/plain,text/markdown"`,
      })}
      ${field({
        id: 'upload-title',
        name: 'title',
        label: 'Title (optional)',
        value: form.title ?? '',
        hint: 'The file’s name when left empty.',
        error: form.errors?.title,
        attributes: html`maxlength="${knowledgeLimits.titleMaxLength}"`,
      })}
      ${sourceField('upload-source-url', form)}
      <button type="submit" id="document-upload">Upload the document</button>
    </form>
  </section>`;
}

/** Adding a document (owners and admins), by pasting its text or uploading a file; one key per rendered form. */
export function newDocumentPage(
  signedIn: SignedIn,
  forms: { paste: DocumentForm & { formKey: string }; upload: UploadForm & { formKey: string } },
) {
  const { paste } = forms;
  return page({
    title: 'Add a document',
    signedIn,
    path: knowledgePath,
    body: html`${pageHeader({ title: 'Add a document', lead: html`Paste its text or upload a file. <a href="${knowledgePath}">All documents</a>` })}
      <section class="panel" aria-labelledby="paste-heading">
        <h2 id="paste-heading">Paste text</h2>
        ${notice('error', paste.error)}
        <form method="post" action="${knowledgePath}" class="stack">
          ${csrfField(signedIn.csrfToken)}
          <input type="hidden" name="form_key" value="${paste.formKey}">
          ${documentFields(paste, true)}
          <button type="submit" id="document-add">Add the document</button>
        </form>
      </section>
      ${uploadForm(signedIn, forms.upload)}`,
  });
}

/** One document: its facts and its whole text; owners and admins edit or delete it. */
export function documentPage(signedIn: SignedIn, document: KnowledgeDocument) {
  const format = formatFor(signedIn);
  const manage = canManage(signedIn.role);
  return page({
    title: document.title,
    signedIn,
    path: knowledgePath,
    body: html`${pageHeader({
      title: document.title,
      lead: html`<a href="${knowledgePath}">Knowledge</a>`,
      actions: manage
        ? html`<a id="document-edit" href="${editDocumentHref(document.id)}" class="button">Edit</a><a id="document-delete" href="${deleteDocumentHref(document.id)}" class="button danger">Delete…</a>`
        : '',
    })}
      <dl id="document-facts">
        <dt>Id</dt><dd><code>${document.id}</code></dd>
        <dt>Source</dt><dd>${document.source_url ? html`<a href="${document.source_url}" rel="noopener noreferrer">${document.source_url}</a>` : html`<span class="muted">none</span>`}</dd>
        <dt>Characters</dt><dd>${format.number(document.characters)}</dd>
        <dt>Passages</dt><dd>${format.number(document.passage_count)}</dd>
        <dt>Added</dt><dd>${time(format, document.created_at)}</dd>
        <dt>Updated</dt><dd>${time(format, document.updated_at)}</dd>
      </dl>
      <section aria-labelledby="document-text-heading">
        <h2 id="document-text-heading">Text</h2>
        <pre class="document-text" id="document-text" tabindex="0">${document.text}</pre>
      </section>`,
  });
}

/** Changing a document (owners and admins): the text replaced whole, its passages rebuilt. */
export function editDocumentPage(signedIn: SignedIn, document: KnowledgeDocument, form: DocumentForm = {}) {
  const values = { title: document.title, source_url: document.source_url ?? '', text: document.text, ...form };
  return page({
    title: `Edit ${document.title}`,
    signedIn,
    path: knowledgePath,
    body: html`${pageHeader({ title: `Edit ${document.title}`, lead: html`<a href="${documentHref(document.id)}">Back to the document</a>` })}
      <section class="panel" aria-label="The document">
        ${notice('error', form.error)}
        <form method="post" action="${documentHref(document.id)}" class="stack">
          ${csrfField(signedIn.csrfToken)}
          ${documentFields(values, true)}
          <button type="submit" id="document-save">Save the document</button>
        </form>
      </section>`,
  });
}

/** The confirmation before a document leaves the knowledge base (owners and admins); its button posts. */
export function deleteDocumentConfirmPage(signedIn: SignedIn, document: KnowledgeDocument) {
  const format = formatFor(signedIn);
  return confirmPage(signedIn, {
    title: `Delete ${document.title}`,
    heading: `Delete “${document.title}”?`,
    path: knowledgePath,
    question: `Its ${format.number(document.passage_count)} passages leave the knowledge base: recall no longer finds them and answers no longer cite them. This cannot be undone.`,
    action: deleteDocumentHref(document.id),
    buttonId: 'document-delete-confirm',
    buttonLabel: 'Delete the document',
    cancelHref: documentHref(document.id),
  });
}

/**
 * A recalled passage's snippet, whose matched words the recall service wraps in `<b>…</b>`: those two tags
 * become `<mark>`, everything else (the document's own text, which may hold markup) stays text.
 */
export function snippetMarkup(snippet: string): Html {
  const parts = snippet.split(/(<b>|<\/b>)/);
  let marked = false;
  const out: Html[] = [];
  for (const part of parts) {
    if (part === '<b>') marked = true;
    else if (part === '</b>') marked = false;
    else if (part) out.push(marked ? html`<mark>${part}</mark>` : html`${part}`);
  }
  return html`${out}`;
}

/** An answer whose `[n]` markers become links to the cited passage's document. */
export function answerMarkup(answer: string, result: Pick<RecallResponse, 'results'>): Html {
  const out: Html[] = [];
  for (const [index, part] of answer.split(/(\[\d+\])/).entries()) {
    const ref = index % 2 === 1 ? Number(part.slice(1, -1)) : 0;
    const cited = ref > 0 ? result.results[ref - 1] : undefined;
    out.push(
      cited
        ? html`<a href="${documentHref(cited.document_id)}" class="citation" aria-label="Source ${ref}: ${cited.title}">[${ref}]</a>`
        : html`${part}`,
    );
  }
  return html`${out}`;
}

/** Asking the knowledge base: the question's form (a GET: asking changes nothing), the answer and its sources. */
export function askPage(signedIn: SignedIn, view: { question?: string | undefined; error?: string | undefined; result?: RecallResponse }) {
  const { result } = view;
  return page({
    title: view.question ? `Ask: ${view.question}` : 'Ask the knowledge base',
    signedIn,
    path: knowledgePath,
    body: html`${pageHeader({
      title: 'Ask the knowledge base',
      lead: html`The answer an agent would get, from your documents only, citing them. <a href="${knowledgePath}">All documents</a>`,
    })}
      <form method="get" action="${askPath}" class="stack panel" aria-label="Ask a question">
        ${field({
          id: 'ask-question',
          name: 'q',
          label: 'Question',
          value: view.question ?? '',
          error: view.error,
          attributes: html`required maxlength="${knowledgeLimits.queryMaxLength}"`,
        })}
        <button type="submit" id="ask-submit">Ask</button>
      </form>
      ${result ? answerSection(result) : ''}`,
  });
}

function answerSection(result: RecallResponse): Html {
  const answer = result.answer
    ? html`<div class="answer" id="answer"><p>${answerMarkup(result.answer, result)}</p>${
        result.answered_by ? html`<p class="muted">Answered by ${result.answered_by.provider} (${result.answered_by.model}).</p>` : ''
      }</div>`
    : html`<p class="notice" role="status" id="answer-none">${
        result.results.length === 0
          ? 'No passage of your documents matches this question, so there is nothing to answer from. Try other words, or add a document that covers it.'
          : (result.answer_error ?? 'No model provider is configured to write an answer; the matching passages are below.')
      }</p>`;
  return html`<section aria-labelledby="answer-heading">
    <h2 id="answer-heading">Answer</h2>
    ${answer}
    ${
      result.results.length > 0
        ? html`<h2 id="sources-heading">Sources</h2>
          <ol class="sources" id="sources" aria-labelledby="sources-heading">
            ${result.results.map(
              (passage) => html`<li class="source" id="source-${passage.passage_id}">
                <a href="${documentHref(passage.document_id)}">${passage.title}</a>
                <p>${snippetMarkup(passage.snippet)}</p>
              </li>`,
            )}
          </ol>`
        : ''
    }
  </section>`;
}
