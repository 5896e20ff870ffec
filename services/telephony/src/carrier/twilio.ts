import type { CarrierAdapter, PlaceCallRequest, SendSmsRequest, SentSms } from './carrier.js';
import { CarrierError } from './carrier.js';

export interface TwilioOptions {
  accountSid: string;
  authToken: string;
  /** https://api.twilio.com, or a local server that speaks the same protocol. */
  apiBaseUrl: string;
  timeoutMs: number;
  /** Where Twilio fetches the call's instructions (TwiML) once answered: the voice agent. */
  voiceUrl?: string | undefined;
}

interface TwilioErrorBody {
  code?: number;
  message?: string;
}

interface TwilioCall {
  sid: string;
  date_created?: string | null;
}

// What Twilio plays when no voice agent URL is configured: a short notice, then hang up.
const fallbackTwiml = '<Response><Say>Hello. This is an automated call. Goodbye.</Say></Response>';

/** Twilio's REST API (2010-04-01): calls and messages, form-encoded requests, basic auth, JSON answers. */
export class TwilioCarrier implements CarrierAdapter {
  readonly name = 'twilio' as const;
  private readonly options: TwilioOptions;
  private readonly authorization: string;

  constructor(options: TwilioOptions) {
    this.options = options;
    this.authorization = `Basic ${Buffer.from(`${options.accountSid}:${options.authToken}`).toString('base64')}`;
  }

  private url(path: string): string {
    return `${this.options.apiBaseUrl.replace(/\/$/, '')}/2010-04-01/Accounts/${this.options.accountSid}${path}`;
  }

  private async request<T>(method: 'GET' | 'POST', path: string, form?: URLSearchParams): Promise<T> {
    let response: Response;
    try {
      response = await fetch(this.url(path), {
        method,
        headers: {
          authorization: this.authorization,
          accept: 'application/json',
          ...(form ? { 'content-type': 'application/x-www-form-urlencoded' } : {}),
        },
        ...(form ? { body: form.toString() } : {}),
        signal: AbortSignal.timeout(this.options.timeoutMs),
      });
    } catch (error) {
      throw new CarrierError('carrier_unreachable', `Twilio did not answer: ${(error as Error).message}`, {
        retryable: true,
        cause: error,
      });
    }
    const text = await response.text();
    if (!response.ok) {
      let body: TwilioErrorBody = {};
      try {
        body = JSON.parse(text) as TwilioErrorBody;
      } catch {
        // Twilio answers JSON; a proxy in between may not.
      }
      // Throttling and server errors pass; a 4xx is about this request and will not get better.
      const retryable = response.status === 429 || response.status >= 500;
      const code = body.code ? `twilio_${body.code}` : `twilio_http_${response.status}`;
      throw new CarrierError(code, body.message ?? `Twilio answered ${response.status}`, { retryable });
    }
    try {
      return JSON.parse(text) as T;
    } catch (error) {
      throw new CarrierError('carrier_bad_response', 'Twilio answered with something other than JSON', { retryable: true, cause: error });
    }
  }

  async placeCall(request: PlaceCallRequest): Promise<{ carrierCallId: string }> {
    const form = new URLSearchParams({ To: request.to, From: request.from });
    if (this.options.voiceUrl) form.set('Url', this.options.voiceUrl);
    else form.set('Twiml', fallbackTwiml);
    form.set('StatusCallback', request.statusCallbackUrl);
    form.set('StatusCallbackMethod', 'POST');
    for (const event of ['initiated', 'ringing', 'answered', 'completed']) form.append('StatusCallbackEvent', event);
    // Answering-machine detection tells a voicemail from a person (AnsweredBy in the callbacks).
    form.set('MachineDetection', 'Enable');
    const call = await this.request<TwilioCall>('POST', '/Calls.json', form);
    if (typeof call.sid !== 'string')
      throw new CarrierError('carrier_bad_response', 'Twilio returned a call without a sid', { retryable: true });
    return { carrierCallId: call.sid };
  }

  async findPlacedCall(request: PlaceCallRequest, since: Date): Promise<string | undefined> {
    const query = new URLSearchParams({ To: request.to, From: request.from, PageSize: '20' });
    const page = await this.request<{ calls?: TwilioCall[] }>('GET', `/Calls.json?${query}`);
    // Twilio dates are RFC 2822 with one-second precision.
    const from = since.getTime() - 1_000;
    return page.calls?.find((call) => call.date_created && Date.parse(call.date_created) >= from)?.sid;
  }

  async cancelCall(carrierCallId: string): Promise<void> {
    await this.request('POST', `/Calls/${encodeURIComponent(carrierCallId)}.json`, new URLSearchParams({ Status: 'canceled' }));
  }

  async sendSms(request: SendSmsRequest): Promise<SentSms> {
    const form = new URLSearchParams({ To: request.to, From: request.from, Body: request.body, StatusCallback: request.statusCallbackUrl });
    const message = await this.request<{ sid?: string; price?: string | null }>('POST', '/Messages.json', form);
    if (typeof message.sid !== 'string')
      throw new CarrierError('carrier_bad_response', 'Twilio returned a message without a sid', { retryable: true });
    // Twilio reports price as a negative decimal string in the account currency, usually only later.
    const price = message.price ? Math.round(Math.abs(Number(message.price)) * 100) : null;
    return { carrierMessageId: message.sid, costAmount: Number.isFinite(price) ? price : null };
  }
}
