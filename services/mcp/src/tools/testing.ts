import { advanceCallFields, idSchema, outcomeCompletes, telephonyRpc, webhooksRpc } from '@voice/proto';
import { defineTool } from '../mcp/tool.js';

// Test mode's helpers (the `testing` toolset): one tool per test helper operation (`testOnly`). They are
// offered to test credentials only (the catalogue hides them from a live one, whose call is an unknown tool),
// so an agent building against the platform can play out what real callers and carriers would do.

/** Said first in every description: an agent reading the list must not expect these on live data. */
const testModeOnly = 'Test mode only (test credentials; live ones never see this tool).';

export const testingTools = [
  defineTool({
    name: 'test_advance_call',
    toolset: 'testing',
    title: 'Test mode: advance a test call',
    description: `${testModeOnly} Moves a test call to its next state, or to \`status\`, or completes it with \`outcome\`, sending the events a real call would; an ended call is a conflict.`,
    operation: telephonyRpc.advanceCall,
    input: advanceCallFields
      .strict()
      .extend({ call_id: idSchema('call').describe('The test call, e.g. from service_list_calls') })
      .refine(...outcomeCompletes),
    rpcInput: ({ call_id, ...move }) => ({ ...move, id: call_id }),
  }),
  defineTool({
    name: 'test_simulate_inbound_call',
    toolset: 'testing',
    title: 'Test mode: simulate an inbound call',
    description: `${testModeOnly} A call from \`from\` rings, is answered and ends (with \`outcome\`, or one the simulator picks), as a real inbound call with its events.`,
    operation: telephonyRpc.simulateInboundCall,
  }),
  defineTool({
    name: 'test_simulate_inbound_sms',
    toolset: 'testing',
    title: 'Test mode: simulate an inbound SMS',
    description: `${testModeOnly} A text from \`from\`, filed and announced (sms.received) as a real one; STOP adds the sender to the test do-not-call list, START removes it.`,
    operation: telephonyRpc.simulateInboundSms,
  }),
  defineTool({
    name: 'test_trigger_webhook_event',
    toolset: 'testing',
    title: 'Test mode: send a webhook event to test endpoints',
    description: `${testModeOnly} Sends one event of \`event_type\`, with a realistic payload (livemode false), to every enabled test webhook endpoint subscribed to it.`,
    operation: webhooksRpc.triggerEvent,
    // It POSTs to the organization's own endpoints, outside the platform.
    annotations: { openWorldHint: true },
  }),
];
