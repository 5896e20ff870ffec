import { ApiError, type Bus } from '@voice/kit';
import { consoleDocumentBodyLimitBytes, knowledgeLimits, type RpcDefinition, recallRpc } from '@voice/proto';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { isFormKey, newFormKey } from '../domain/console-actions.js';
import type { ConsoleContext } from '../domain/context.js';
import { documentParams, pageQuery, recallFor } from '../domain/knowledge.js';
import { checkedQuery } from '../domain/messages.js';
import { flash } from '../http/flash.js';
import { type FormFields, formOf } from '../http/forms.js';
import { sendPage } from '../http/pages.js';
import { paramsOf } from '../http/params.js';
import { signedInOf } from '../http/session.js';
import { acceptTextUpload, uploadedFileName } from '../http/uploads.js';
import {
  askPage,
  type DocumentForm,
  deleteDocumentConfirmPage,
  documentHref,
  documentPage,
  editDocumentPage,
  knowledgeListPage,
  knowledgePath,
  newDocumentPage,
  uploadMaxBytes,
} from '../views/knowledge.js';

/** The fields of a document form the recall service names in a refusal (`param`; `changes.…` for an update). */
const documentFields = ['title', 'text', 'source_url'] as const;
type DocumentField = (typeof documentFields)[number];

/** A refusal in words, on the field it names; the service's own message where it says more than a rule. */
function refusalWords(param: DocumentField, message: string): string {
  switch (param) {
    case 'title':
      return `Give the document a title of at most ${knowledgeLimits.titleMaxLength} characters.`;
    case 'source_url':
      return 'Enter the source as an http:// or https:// address, or leave it empty.';
    default:
      return /at most/.test(message)
        ? `The text is longer than ${knowledgeLimits.textMaxLength.toLocaleString('en')} characters: split it into several documents.`
        : 'Paste the document’s text: it cannot be empty.';
  }
}

/** The field a refusal is about, or undefined when it is about none of the form's (then it is an error page). */
function refusedField(error: unknown): DocumentField | undefined {
  if (!(error instanceof ApiError && error.code === 'invalid_request')) return undefined;
  const param = error.param?.replace(/^changes\./, '');
  return documentFields.find((name) => name === param);
}

/** The form's key (`domain/console-actions.ts`), or a 400 page saying what to do again. */
function formKeyOf(fields: FormFields, again: string): string {
  if (isFormKey(fields.form_key)) return fields.form_key;
  throw new ApiError('invalid_request', `This form is incomplete or out of date: reload the page and ${again}.`, { param: 'form_key' });
}

/** The document as the form typed it; an empty source is none (left out on add, removed on update). */
const typedDocument = (fields: FormFields) => ({
  title: fields.title ?? '',
  text: fields.text ?? '',
  source_url: fields.source_url?.trim() ?? '',
});

/**
 * The knowledge base: its documents (a page at a time, one document's page), adding a document by pasting
 * its text, editing and deleting one (after a confirmation page), and asking it a question. Each is the
 * recall service's own operation over NATS for the signed-in person (the API's and MCP's: `read` for
 * members, `read-write` for owners and admins); changes are audited with the person as actor.
 */
export function knowledgeRoutes(app: FastifyInstance, ctx: ConsoleContext & { bus: Bus }): void {
  const recall = (request: FastifyRequest) => recallFor(ctx, signedInOf(request), request.id);
  // A document's form carries up to 200,000 characters, percent-encoded: more than the 64 KiB of other forms.
  /** A document form's route: owners and admins, a body as large as a document may be, the operation it runs. */
  const documentForm = (operation: RpcDefinition) => ({
    config: { access: 'manager' as const, operation },
    bodyLimit: consoleDocumentBodyLimitBytes,
  });

  app.get(knowledgeRoute(''), { config: { access: 'signed-in', operation: recallRpc.listDocuments } }, async (request, reply) => {
    const { cursor } = checkedQuery(pageQuery, request.query);
    const documents = await (await recall(request)).list(cursor);
    return sendPage(reply, 200, knowledgeListPage(signedInOf(request), { documents, firstPage: cursor === undefined }));
  });

  app.get(knowledgeRoute('/new'), { config: { access: 'manager' } }, async (request, reply) => {
    return sendPage(
      reply,
      200,
      newDocumentPage(signedInOf(request), { paste: { formKey: newFormKey() }, upload: { formKey: newFormKey() } }),
    );
  });

  app.post(knowledgeRoute(''), documentForm(recallRpc.addDocument), async (request, reply) => {
    const fields = formOf(request.body);
    const formKey = formKeyOf(fields, 'add the document again');
    const typed = typedDocument(fields);
    const { source_url, ...document } = typed;
    try {
      const added = await (await recall(request)).add({ ...document, ...(source_url ? { source_url } : {}) }, formKey);
      flash(request, reply, ctx.env, 'document-added');
      return reply.redirect(documentHref(added.id), 303);
    } catch (error) {
      const param = refusedField(error);
      if (!param) throw error;
      // The same key again: the person corrects the field and submits this form once more.
      const paste: DocumentForm & { formKey: string } = {
        ...typed,
        formKey: formKey,
        errors: { [param]: refusalWords(param, (error as ApiError).message) },
      };
      return sendPage(reply, 400, newDocumentPage(signedInOf(request), { paste, upload: { formKey: newFormKey() } }));
    }
  });

  // An uploaded file: multipart in this route's scope only (the console's other pages take urlencoded forms).
  app.register(async (uploads) => {
    await acceptTextUpload(uploads, { fileField: 'file', maxBytes: uploadMaxBytes });
    uploads.post(knowledgeRoute('/upload'), documentForm(recallRpc.addDocument), async (request, reply) => {
      const fields = formOf(request.body);
      const formKey = formKeyOf(fields, 'upload the file again');
      const fileName = uploadedFileName(request);
      if (fileName === undefined || fields.file === undefined) {
        throw new ApiError('invalid_request', 'Choose a text (.txt) or Markdown (.md) file to upload.', { param: 'file' });
      }
      const { source_url, title } = typedDocument(fields);
      // Without a title, the file's name without its extension (as long as a title may be).
      const named = title.trim() || fileName.replace(/\.[^.]+$/, '').slice(0, knowledgeLimits.titleMaxLength);
      try {
        const document = { title: named, text: fields.file, ...(source_url ? { source_url } : {}) };
        const added = await (await recall(request)).add(document, formKey);
        flash(request, reply, ctx.env, 'document-added');
        return reply.redirect(documentHref(added.id), 303);
      } catch (error) {
        const param = refusedField(error);
        if (!param) throw error;
        // The text's refusal is the file's: a file input cannot be given back, so the person chooses it again.
        const words = refusalWords(param, (error as ApiError).message);
        const errors =
          param === 'text' ? { file: words.replace('Paste the document’s text', 'The file holds no text') } : { [param]: words };
        const upload = { title, source_url, formKey: formKey, errors };
        return sendPage(reply, 400, newDocumentPage(signedInOf(request), { paste: { formKey: newFormKey() }, upload }));
      }
    });
  });

  app.get(knowledgeRoute('/ask'), { config: { access: 'signed-in', operation: recallRpc.recall } }, async (request, reply) => {
    const signedIn = signedInOf(request);
    const { q } = checkedQuery(askQuery, request.query);
    if (q === undefined) return sendPage(reply, 200, askPage(signedIn, {}));
    try {
      const result = await (await recall(request)).ask(q);
      return sendPage(reply, 200, askPage(signedIn, { question: q, result }));
    } catch (error) {
      if (!(error instanceof ApiError && error.code === 'invalid_request' && error.param === 'query')) throw error;
      const words = `Ask in at most ${knowledgeLimits.queryMaxLength.toLocaleString('en')} characters.`;
      return sendPage(reply, 400, askPage(signedIn, { question: q, error: words }));
    }
  });

  app.get(knowledgeRoute('/:id'), { config: { access: 'signed-in', operation: recallRpc.getDocument } }, async (request, reply) => {
    const { id } = paramsOf(documentParams, request.params);
    return sendPage(reply, 200, documentPage(signedInOf(request), await (await recall(request)).get(id)));
  });

  app.get(knowledgeRoute('/:id/edit'), { config: { access: 'manager' } }, async (request, reply) => {
    const { id } = paramsOf(documentParams, request.params);
    return sendPage(reply, 200, editDocumentPage(signedInOf(request), await (await recall(request)).get(id)));
  });

  app.post(knowledgeRoute('/:id'), documentForm(recallRpc.updateDocument), async (request, reply) => {
    const { id } = paramsOf(documentParams, request.params);
    const typed = typedDocument(formOf(request.body));
    const service = await recall(request);
    try {
      await service.update(id, { title: typed.title, text: typed.text, source_url: typed.source_url || null });
    } catch (error) {
      const param = refusedField(error);
      if (!param) throw error;
      const form: DocumentForm = { ...typed, errors: { [param]: refusalWords(param, (error as ApiError).message) } };
      return sendPage(reply, 400, editDocumentPage(signedInOf(request), await service.get(id), form));
    }
    flash(request, reply, ctx.env, 'document-saved');
    return reply.redirect(documentHref(id), 303);
  });

  // The confirmation is a page of its own, so deleting needs no JavaScript; members get no such page.
  app.get(knowledgeRoute('/:id/delete'), { config: { access: 'manager' } }, async (request, reply) => {
    const { id } = paramsOf(documentParams, request.params);
    return sendPage(reply, 200, deleteDocumentConfirmPage(signedInOf(request), await (await recall(request)).get(id)));
  });

  app.post(
    knowledgeRoute('/:id/delete'),
    { config: { access: 'manager', operation: recallRpc.deleteDocument } },
    async (request, reply) => {
      const { id } = paramsOf(documentParams, request.params);
      await (await recall(request)).remove(id);
      flash(request, reply, ctx.env, 'document-deleted');
      return reply.redirect(knowledgePath, 303);
    },
  );
}

/** The routes' paths under the pages' prefix (/dashboard). */
const knowledgeRoute = (rest: string) => `/knowledge${rest}`;

/** The question, as the ask form sends it; empty or absent shows the form alone. Its limits are the operation's. */
const askQuery = z.object({
  q: z.preprocess((value) => (typeof value === 'string' && value.trim() === '' ? undefined : value), z.string().trim().optional()),
});
