// An OAuth client's web server for tests: it serves Client ID Metadata Documents over https (the spec
// requires https client_id URLs) with a certificate of a test CA made here by openssl, whose file the console
// is told to trust (OAUTH_CLIENT_METADATA_CA_FILE).
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '@voice/kit/testing';

export interface ClientMetadataServer {
  /** https://127.0.0.1:PORT */
  origin: string;
  /** The PEM file of the certificate (self-signed, so it is its own CA). */
  caFile: string;
  /** Serves `body` (a JSON value, or raw text) at `path`. */
  serve(path: string, body: unknown): string;
  close(): Promise<void>;
}

export async function startClientMetadataServer(): Promise<ClientMetadataServer> {
  const directory = mkdtempSync(join(tmpdir(), 'oauth-client-'));
  const keyFile = join(directory, 'key.pem');
  const caFile = join(directory, 'cert.pem');
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:prime256v1',
      '-nodes',
      '-subj',
      '/CN=127.0.0.1',
      '-addext',
      'subjectAltName=IP:127.0.0.1',
      '-days',
      '1',
      '-keyout',
      keyFile,
      '-out',
      caFile,
    ],
    { stdio: 'ignore' },
  );
  const documents = new Map<string, string>();
  const server: Server = createServer({ key: readFileSync(keyFile), cert: readFileSync(caFile) }, (request, response) => {
    const body = documents.get(request.url ?? '');
    if (body === undefined) response.writeHead(404).end();
    else response.writeHead(200, { 'content-type': 'application/json' }).end(body);
  });
  const port = await freePort();
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  const origin = `https://127.0.0.1:${port}`;
  return {
    origin,
    caFile,
    serve(path, body) {
      documents.set(path, typeof body === 'string' ? body : JSON.stringify(body));
      return `${origin}${path}`;
    },
    async close() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
      rmSync(directory, { recursive: true, force: true });
    },
  };
}
