import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A local stand-in for Twilio's REST API (2010-04-01), speaking its protocol: basic auth with the account
 * sid and auth token, form-encoded POSTs, JSON answers and Twilio-style errors. Records every request so a
 * test can see exactly what the production adapter sent.
 */
export interface FakeTwilioRequest {
  method: string;
  path: string;
  query: URLSearchParams;
  form: URLSearchParams;
}

export interface FakeTwilio {
  url: string;
  accountSid: string;
  authToken: string;
  requests: FakeTwilioRequest[];
  calls: Map<string, { sid: string; to: string; from: string; dateCreated: Date; status: string }>;
  /** The next N call or message creations, or call updates, answer this HTTP status (a Twilio outage). */
  failNext(count: number, status?: number): void;
  close(): Promise<void>;
}

function read(request: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    let text = '';
    request.setEncoding('utf8');
    request.on('data', (chunk: string) => {
      text += chunk;
    });
    request.on('end', () => resolve(text));
    request.on('error', reject);
  });
}

const sid = (prefix: string) => `${prefix}${randomBytes(16).toString('hex')}`;

/** Numbers Twilio itself refuses (its documented test number for an invalid `To`). */
export const invalidNumber = '+15005550001';

export async function startFakeTwilio(): Promise<FakeTwilio> {
  const accountSid = `AC${randomBytes(16).toString('hex')}`;
  const authToken = randomBytes(16).toString('hex');
  const requests: FakeTwilioRequest[] = [];
  const calls: FakeTwilio['calls'] = new Map();
  let failures = 0;
  let failureStatus = 503;
  const base = `/2010-04-01/Accounts/${accountSid}`;

  const server: Server = createServer(async (request, response) => {
    const url = new URL(request.url ?? '/', 'http://fake');
    const body = await read(request);
    const form = new URLSearchParams(body);
    requests.push({ method: request.method ?? 'GET', path: url.pathname, query: url.searchParams, form });
    const send = (status: number, payload: unknown) => {
      response.writeHead(status, { 'content-type': 'application/json' });
      response.end(JSON.stringify(payload));
    };
    const expected = `Basic ${Buffer.from(`${accountSid}:${authToken}`).toString('base64')}`;
    if (request.headers.authorization !== expected) {
      send(401, { code: 20003, message: 'Authenticate', status: 401 });
      return;
    }
    const creating = request.method === 'POST' && (url.pathname === `${base}/Calls.json` || url.pathname === `${base}/Messages.json`);
    const callMatch = new RegExp(`^${base}/Calls/(CA[0-9a-f]{32})\\.json$`).exec(url.pathname);
    const updatingCall = request.method === 'POST' && callMatch !== null;
    if ((creating || updatingCall) && failures > 0) {
      failures -= 1;
      send(failureStatus, { code: 20500, message: 'Internal Server Error', status: failureStatus });
      return;
    }
    if (request.method === 'POST' && url.pathname === `${base}/Calls.json`) {
      const to = form.get('To') ?? '';
      if (to === invalidNumber) {
        send(400, { code: 21211, message: `The 'To' number ${to} is not a valid phone number.`, status: 400 });
        return;
      }
      const call = { sid: sid('CA'), to, from: form.get('From') ?? '', dateCreated: new Date(), status: 'queued' };
      calls.set(call.sid, call);
      send(201, { sid: call.sid, status: 'queued', to: call.to, from: call.from, date_created: call.dateCreated.toUTCString() });
      return;
    }
    if (request.method === 'GET' && url.pathname === `${base}/Calls.json`) {
      const matching = [...calls.values()].filter(
        (call) => call.to === url.searchParams.get('To') && call.from === url.searchParams.get('From'),
      );
      send(200, { calls: matching.map((call) => ({ sid: call.sid, status: call.status, date_created: call.dateCreated.toUTCString() })) });
      return;
    }
    if (request.method === 'POST' && callMatch?.[1]) {
      const call = calls.get(callMatch[1]);
      if (!call) {
        send(404, { code: 20404, message: 'The requested resource was not found', status: 404 });
        return;
      }
      call.status = form.get('Status') ?? call.status;
      send(200, { sid: call.sid, status: call.status });
      return;
    }
    if (request.method === 'POST' && url.pathname === `${base}/Messages.json`) {
      send(201, { sid: sid('SM'), status: 'queued', to: form.get('To'), from: form.get('From'), body: form.get('Body'), price: null });
      return;
    }
    send(404, { code: 20404, message: 'The requested resource was not found', status: 404 });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    accountSid,
    authToken,
    requests,
    calls,
    failNext(count, status = 503) {
      failures = count;
      failureStatus = status;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
