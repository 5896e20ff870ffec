/**
 * What the dialer needs from a telephone carrier. Two implementations: `sandbox` (a simulation inside
 * this service) and `twilio` (Twilio's REST API). Status changes come back asynchronously, through the
 * carrier's callbacks (Twilio) or scheduled simulation steps (sandbox), into the same domain functions.
 */
export interface PlaceCallRequest {
  callId: string;
  orgId: string;
  from: string;
  to: string;
  /** Where the carrier reports ringing, answer and hang-up. */
  statusCallbackUrl: string;
  metadata: Record<string, unknown>;
}

export interface SendSmsRequest {
  smsId: string;
  orgId: string;
  from: string;
  to: string;
  body: string;
  /** Billed parts, as counted before sending. */
  segments: number;
  statusCallbackUrl: string;
}

export interface SentSms {
  carrierMessageId: string;
  /** Cost in minor units when the carrier tells it at once. */
  costAmount: number | null;
}

export interface CarrierAdapter {
  readonly name: 'sandbox' | 'twilio';
  /** Asks the carrier to place the call; resolves with the carrier's id once it accepted. */
  placeCall(request: PlaceCallRequest): Promise<{ carrierCallId: string }>;
  /**
   * A call this adapter already placed for the request but whose id was never recorded (the worker died
   * between the carrier's answer and the database write). The dialer adopts it instead of dialing twice.
   */
  findPlacedCall(request: PlaceCallRequest, since: Date): Promise<string | undefined>;
  /** Stops a call the carrier has not connected yet (queued or ringing); an answered call is left alone. */
  cancelCall(carrierCallId: string): Promise<void>;
  sendSms(request: SendSmsRequest): Promise<SentSms>;
}

/** A carrier refusal or outage. `retryable` errors are tried again with back-off; others fail the call. */
export class CarrierError extends Error {
  override readonly name = 'CarrierError';
  readonly code: string;
  readonly retryable: boolean;

  constructor(code: string, message: string, options: { retryable: boolean; cause?: unknown }) {
    super(message, { cause: options.cause });
    this.code = code;
    this.retryable = options.retryable;
  }
}
