import { createHash } from 'node:crypto';
import { sandboxScript } from '../domain/sandbox-script.js';
import type { CarrierAdapter, PlaceCallRequest, SendSmsRequest, SentSms } from './carrier.js';

/**
 * The simulation's next step for a call or message, run later by the dialer's sandbox worker. A call's step
 * names the move it makes (ring, answer, hang up); a message is delivered, and a test message to the STOP
 * magic number is then answered (`stop_reply`).
 */
export type SandboxStep =
  | { kind: 'call'; callId: string; orgId: string; step: 'ringing' | 'answer' | 'hangup' }
  | { kind: 'sms'; smsId: string; orgId: string; step: 'delivered' | 'stop_reply' };

export type SandboxScheduler = (step: SandboxStep, delayMs: number) => Promise<void>;

/** A carrier id shaped like Twilio's (`SB…` for calls, `SM…` for messages), derived from our record's id. */
export const sandboxSid = (prefix: 'SB' | 'SM', id: string) => `${prefix}${createHash('sha256').update(id).digest('hex').slice(0, 32)}`;

/**
 * The sandbox carrier: a SIMULATION that places no real calls and sends no real messages. It answers like
 * a carrier (ids shaped like Twilio's, `SB…` for calls) and then plays the call out on realistic timings
 * through scheduled steps (see domain/sandbox-script.ts). Everything is keyed by the call id, so placing the
 * same call twice schedules it once.
 */
export class SandboxCarrier implements CarrierAdapter {
  readonly name = 'sandbox' as const;
  private readonly schedule: SandboxScheduler;
  private readonly delayMs: (seconds: number) => number;
  private readonly segmentPrice: number;

  constructor(options: { schedule: SandboxScheduler; timeScale: number; segmentPrice: number }) {
    this.schedule = options.schedule;
    this.delayMs = (seconds) => Math.round(seconds * 1000 * options.timeScale);
    this.segmentPrice = options.segmentPrice;
  }

  async placeCall(request: PlaceCallRequest): Promise<{ carrierCallId: string }> {
    // The first step of the script; each step schedules the next, so they run strictly in order.
    const script = sandboxScript(request.callId, request.metadata, { direction: 'outbound', contact: request.to });
    await this.schedule({ kind: 'call', callId: request.callId, orgId: request.orgId, step: 'ringing' }, this.delayMs(script.dialSeconds));
    return { carrierCallId: sandboxSid('SB', request.callId) };
  }

  async findPlacedCall(): Promise<string | undefined> {
    // Placing is idempotent here, so a retried dial simply places again.
    return undefined;
  }

  async cancelCall(): Promise<void> {
    // Like Twilio's cancel of a queued or ringing call: the call never connects. The simulation's next step
    // (ring, answer or hang-up) reads the record, which the domain marks canceled right after this, so it
    // finds the call final and neither answers it nor schedules another step.
  }

  async sendSms(request: SendSmsRequest): Promise<SentSms> {
    await this.schedule({ kind: 'sms', smsId: request.smsId, orgId: request.orgId, step: 'delivered' }, this.delayMs(2));
    return { carrierMessageId: sandboxSid('SM', request.smsId), costAmount: request.segments * this.segmentPrice };
  }

  /** Milliseconds for simulated seconds, scaled by SANDBOX_TIME_SCALE. */
  scaled(seconds: number): number {
    return this.delayMs(seconds);
  }
}
