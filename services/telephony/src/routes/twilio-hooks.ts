import { ApiError, type HttpApp } from '@voice/kit';
import { idSchema } from '@voice/proto';
import { z } from 'zod';
import { verifyTwilioSignature } from '../carrier/twilio-signature.js';
import type { TelephonyDeps } from '../deps.js';
import { fromTwilioCallStatus, isFinal } from '../domain/call-status.js';
import { applyCallReport, connectTwiml, receiveCall } from '../domain/calls.js';
import { applySmsReport, receiveSms } from '../domain/sms.js';
import { findCallByCarrierId, findCallForCarrier, updateCall } from '../store/calls.js';
import { findSmsForCarrier } from '../store/sms.js';

const formSchema = z.record(z.string(), z.string());
const emptyTwiml = '<?xml version="1.0" encoding="UTF-8"?><Response></Response>';
const formBodyLimitBytes = 64 * 1024;

/**
 * Twilio's callbacks: call progress, message delivery reports and inbound messages. Public routes (no
 * gateway identity); each request must carry Twilio's X-Twilio-Signature over the exact public URL and
 * its form parameters, made with our auth token. The organization comes from the record the URL names,
 * or for inbound calls and messages from the live conversation they answer (never a test twin's: routing.ts).
 */
export async function twilioHookRoutes(app: HttpApp, deps: TelephonyDeps): Promise<void> {
  const placedByTwilio = (orgId: string) => deps.carrierFor(orgId).name === 'twilio';
  await app.register(async (hooks: HttpApp) => {
    // Twilio posts application/x-www-form-urlencoded, and these routes accept nothing else: no other parser
    // (JSON's included) runs on what an unsigned caller sends.
    hooks.removeAllContentTypeParsers();
    hooks.addContentTypeParser(
      'application/x-www-form-urlencoded',
      { parseAs: 'string', bodyLimit: formBodyLimitBytes },
      (_request, body, done) => {
        done(null, Object.fromEntries(new URLSearchParams(body as string)));
      },
    );

    // The signature covers the URL and the form's parameters, so it is checked on the parsed form (flat
    // strings), before the body is validated or acted on.
    hooks.addHook('preValidation', (request, _reply, done) => {
      const token = deps.env.TWILIO_AUTH_TOKEN;
      if (!token) return done(new ApiError('forbidden', 'Twilio callbacks are not configured on this deployment.'));
      const url = `${deps.env.PUBLIC_BASE_URL.replace(/\/$/, '')}${request.url}`;
      const params = (request.body ?? {}) as Record<string, string>;
      if (!verifyTwilioSignature(token, url, params, request.headers['x-twilio-signature'])) {
        return done(new ApiError('forbidden', 'X-Twilio-Signature does not match this request.'));
      }
      done();
    });

    hooks.post(
      '/api/hooks/twilio/calls/status',
      {
        // Outbound calls name our call id; inbound calls (the number's status callback) only Twilio's sid.
        schema: { hide: true, querystring: z.object({ call_id: idSchema('call').optional() }), body: formSchema },
        config: { public: true },
      },
      async (request, reply) => {
        const params = request.body;
        const call = request.query.call_id
          ? await findCallForCarrier(deps.prisma, request.query.call_id)
          : params.CallSid
            ? await findCallByCarrierId(deps.prisma, params.CallSid)
            : null;
        // A sid that does not match the call we placed is not about this call, and Twilio never had a call
        // another carrier placed (a test twin's, simulated): acknowledge and drop it.
        if (!call || (call.carrierCallId && params.CallSid && call.carrierCallId !== params.CallSid) || !placedByTwilio(call.orgId)) {
          return reply.status(204).send();
        }
        if (!call.carrierCallId && params.CallSid) await updateCall(deps.prisma, call.orgId, call.id, { carrierCallId: params.CallSid });
        const status = fromTwilioCallStatus(params.CallStatus ?? '');
        if (status) {
          const duration = Number.parseInt(params.CallDuration ?? '', 10);
          const machine = (params.AnsweredBy ?? '').startsWith('machine') || params.AnsweredBy === 'fax';
          await applyCallReport(deps, call.orgId, call.id, {
            status,
            ...(isFinal(status) ? { endReason: status === 'completed' ? 'hangup' : status } : {}),
            ...(Number.isFinite(duration) ? { durationSeconds: duration } : {}),
            ...(status === 'completed' && machine ? { outcome: 'voicemail' as const } : {}),
            ...(params.RecordingUrl ? { recordingUrl: params.RecordingUrl } : {}),
          });
        }
        return reply.status(204).send();
      },
    );

    hooks.post(
      '/api/hooks/twilio/calls/inbound',
      { schema: { hide: true, body: formSchema }, config: { public: true } },
      async (request, reply) => {
        const { From: from, To: to, CallSid: sid } = request.body;
        const call = from && to && sid ? await receiveCall(deps, { from, to, carrierCallId: sid }) : null;
        // Unrouted calls are rejected politely; routed ones go to the voice agent.
        const twiml = call ? connectTwiml(deps.env.TWILIO_VOICE_URL) : '<Response><Reject reason="rejected"/></Response>';
        return reply.status(200).type('text/xml').send(`<?xml version="1.0" encoding="UTF-8"?>${twiml}`);
      },
    );

    hooks.post(
      '/api/hooks/twilio/sms/status',
      {
        schema: { hide: true, querystring: z.object({ sms_id: idSchema('sms') }), body: formSchema },
        config: { public: true },
      },
      async (request, reply) => {
        const params = request.body;
        const sms = await findSmsForCarrier(deps.prisma, request.query.sms_id);
        if (!sms || (sms.carrierMessageId && params.MessageSid && sms.carrierMessageId !== params.MessageSid) || !placedByTwilio(sms.orgId))
          return reply.status(204).send();
        const status = params.MessageStatus ?? params.SmsStatus;
        if (status === 'delivered' || status === 'undelivered' || status === 'failed') {
          await applySmsReport(deps, sms.orgId, sms.id, { status, errorCode: params.ErrorCode ? `twilio_${params.ErrorCode}` : undefined });
        }
        return reply.status(204).send();
      },
    );

    hooks.post(
      '/api/hooks/twilio/sms/inbound',
      { schema: { hide: true, body: formSchema }, config: { public: true } },
      async (request, reply) => {
        const { From: from, To: to, Body: body = '', MessageSid: sid } = request.body;
        if (from && to) await receiveSms(deps, { from, to, body, carrierMessageId: sid ?? null });
        // An empty TwiML answer: no automatic reply (Twilio's own opt-out handling answers STOP itself).
        return reply.status(200).type('text/xml').send(emptyTwiml);
      },
    );
  });
}
