// One fault under steady load, as the chaos and scale runs measure it: load for 5 s, the fault (injected and
// ended), load until a request sent after its end succeeds (at most 60 s) and 5 s more, then the wait for
// audit records, events and deliveries to drain, and what the clients saw and what was lost or duplicated.
import type { Load } from './load.js';
import { summarise } from './load.js';
import type { Stack } from './stack.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

export interface Fault {
  name: string;
  title: string;
  /** Done before the load starts (not part of the fault). */
  prepare?: () => Promise<void>;
  /** Injects the fault and ends it; resolves at the fault's end (the component back and answering). */
  inject: () => Promise<void>;
}

/** The table's header, one row per fault from `runFault`. */
export const faultTable = [
  '| fault | requests | statuses | slowest | recovery | 500s | 503 without Retry-After | audit records lost | events lost | deliveries lost | quota counted / audited | exited on their own |',
  '| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |',
];

/** Runs the fault under the load (tagged `tag`, which `stack.account` looks for), prints its figures, returns its table row. */
export async function runFault(stack: Stack, fault: Fault, load: Load, tag: string, say: (line: string) => void): Promise<string> {
  say(`\n## ${fault.name}: ${fault.title}`);
  await fault.prepare?.();
  const errorsBefore = stack.errorLines();
  const crashesBefore = stack.crashes.length;
  load.start();
  await sleep(5_000);
  const faultStart = Date.now();
  await fault.inject();
  const faultEnd = Date.now();
  // Load goes on until a request sent after the fault's end succeeds (at most 60 s), then 5 s more.
  const recoveryDeadline = faultEnd + 60_000;
  while (Date.now() < recoveryDeadline && summarise(load.samples, faultEnd).recoveryMs === undefined) await sleep(200);
  await sleep(5_000);
  await load.stop();
  const loadMs = Date.now() - faultStart + 5_000;

  const { accounting, waitedMs: drained } = await stack.drain(tag, load.samples);

  const figures = summarise(load.samples, faultEnd);
  const histogram = figures.histogram.map(([status, count]) => `${status}×${count}`).join(' ');
  const slowest = figures.slowest ? `${figures.slowest.endedAt - figures.slowest.startedAt} ms (${figures.slowest.op})` : 'n/a';
  const recovery = figures.recoveryMs === undefined ? 'none within 60 s' : `${figures.recoveryMs} ms`;
  const lastFailure = figures.lastFailureMs === undefined ? 'none' : `${figures.lastFailureMs} ms`;
  const { quota, audit, events, deliveries } = accounting;
  const errors = stack.errorLines() - errorsBefore;
  const crashed = stack.crashes.slice(crashesBefore);
  say(`fault lasted ${seconds(faultEnd - faultStart)}, load ${seconds(loadMs)} (5 s before it, 5 s past the first success after it)`);
  say(`requests sent ${figures.sent}${load.skipped ? ` (${load.skipped} not sent: too many already open)` : ''}; statuses ${histogram}`);
  say(
    `failures by operation: ${figures.failures.length === 0 ? 'none' : figures.failures.map(([what, count]) => `${what}×${count}`).join(', ')}`,
  );
  say(`slowest answer ${slowest}`);
  say(`recovery: first success ${recovery} after the fault's end; last failure ${lastFailure} after it`);
  say(`500s: ${figures.status500}; 503s: ${figures.status503}, ${figures.status503WithoutRetryAfter} of them without Retry-After`);
  say(
    `audit records: ${audit.recorded} of ${audit.expected} authenticated responses (missing ${audit.missing}, duplicated ${audit.duplicated})`,
  );
  say(
    `events: ${events.committed} committed writes (${events.answered} answered 201), missing ${events.missing}, duplicated ${events.duplicated}`,
  );
  say(`deliveries: ${deliveries.events} events, missing ${deliveries.missing}, duplicated ${deliveries.duplicated}`);
  say(`quota: the key's monthly counter reads ${quota.counted}; ${quota.audited} requests audited since the run began`);
  say(`processes that exited on their own: ${crashed.length === 0 ? 'none' : crashed.join(', ')}`);
  say(`error log lines ${errors}; waited ${seconds(drained)} for things to drain`);
  return `| ${fault.name} | ${figures.sent} | ${histogram} | ${slowest} | ${recovery} | ${figures.status500} | ${figures.status503WithoutRetryAfter} of ${figures.status503} | ${audit.missing}/${audit.expected} (dup ${audit.duplicated}) | ${events.missing}/${events.committed} (dup ${events.duplicated}) | ${deliveries.missing}/${deliveries.events} (dup ${deliveries.duplicated}) | ${quota.counted} / ${quota.audited} | ${crashed.join(', ') || 'none'} |`;
}
