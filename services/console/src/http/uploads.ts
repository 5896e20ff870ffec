import fastifyMultipart, { type MultipartFile } from '@fastify/multipart';
import { ApiError } from '@voice/kit';
import type { FastifyInstance, FastifyRequest } from 'fastify';

/** The file names a text upload may have, and the types browsers give them (unknown types come as octet-stream). */
const textFileNames = /\.(txt|md|markdown)$/i;
const textFileTypes = new Set(['text/plain', 'text/markdown', 'text/x-markdown', 'application/octet-stream']);

/** The uploaded file's name, for the request whose form carried it. */
const uploadedNames = new WeakMap<FastifyRequest, string>();
export const uploadedFileName = (request: FastifyRequest): string | undefined => uploadedNames.get(request);

/**
 * Takes `multipart/form-data` (what a form with a file input posts) in this scope only, with the other fields
 * as text, so the form token, the form key and every route's `formOf` read an upload as they read any form.
 * The one file, `fileField`, must be a `.txt` or `.md` file of at most `maxBytes` in UTF-8; its text becomes
 * the field's value. Anything else is a 4xx page: another kind of file (400), a larger file or more parts than
 * the form has (413), a form that is not well-formed multipart (400).
 */
export async function acceptTextUpload(scope: FastifyInstance, options: { fileField: string; maxBytes: number }): Promise<void> {
  await scope.register(fastifyMultipart, {
    attachFieldsToBody: 'keyValues',
    // Past the limit busboy stops reading and marks the file truncated, which onFile refuses in words.
    throwFileSizeLimit: false,
    // The form's own fields (the form token, its key, a title and a source address) and one file.
    limits: { fileSize: options.maxBytes, files: 1, fields: 8, parts: 9, fieldSize: 8 * 1024, fieldNameSize: 100 },
    async onFile(this: FastifyRequest, part: MultipartFile) {
      const content = await part.toBuffer();
      if (part.fieldname !== options.fileField) {
        throw new ApiError('invalid_request', 'This form takes one file, in its file field.', { param: part.fieldname });
      }
      if (part.file.truncated) {
        throw new ApiError('payload_too_large', `The file is larger than ${Math.floor(options.maxBytes / 1000).toLocaleString('en')} kB.`, {
          param: options.fileField,
        });
      }
      if (!textFileNames.test(part.filename) || !textFileTypes.has(part.mimetype)) {
        throw new ApiError('invalid_request', 'Upload a text (.txt) or Markdown (.md) file; other kinds of file are not taken.', {
          param: options.fileField,
        });
      }
      let text: string;
      try {
        text = new TextDecoder('utf-8', { fatal: true }).decode(content);
      } catch {
        throw new ApiError('invalid_request', 'The file is not text in UTF-8: save it as UTF-8 text and upload it again.', {
          param: options.fileField,
        });
      }
      uploadedNames.set(this, part.filename);
      (part as unknown as { value: string }).value = text;
    },
  });
  scope.setErrorHandler((error) => {
    throw refusedUpload(error);
  });
}

/** The multipart parser's own refusals as the console's errors (the page handler above this scope shows them). */
function refusedUpload(error: unknown): unknown {
  if (error instanceof ApiError) return error;
  const { code, statusCode } = error as { code?: unknown; statusCode?: unknown };
  if (typeof code !== 'string' || !code.startsWith('FST_')) {
    // busboy's own errors on a body that is not well-formed multipart carry no code.
    const message = (error as Error).message ?? '';
    return /multipart|form|boundary/i.test(message)
      ? new ApiError('invalid_request', 'The upload is not a complete form: send it again.')
      : error;
  }
  if (statusCode === 413) return new ApiError('payload_too_large', 'The upload has more fields or files than the form has.');
  if (code.startsWith('FST_ERR_')) return error;
  return new ApiError('invalid_request', 'The upload is not a form as a browser sends it: send it again from the page.');
}
