// A reporter for node's test runner (scripts/test.mjs adds it beside the usual one): how long each test file
// ran, as one JSON line per file once every file has finished, and one JSON line per failed test. The
// runner reports the files in order and holds back the events of a file that ran beside an earlier one, so
// the time an event arrives says little; each file's time is the sum of its top-level tests' and suites' own
// durations (hooks inside them included), or, when the file itself failed (a timeout, a crash), the duration
// reported for the file. The failures are repeated at the end of the run because CI keeps only the tail of
// its output, where the usual reporter's `not ok` lines may be long gone.
export default async function* fileDurations(source) {
  const summed = new Map();
  const ownDuration = new Map();
  for await (const event of source) {
    if (event.type !== 'test:pass' && event.type !== 'test:fail') continue;
    const { file, name, nesting, details } = event.data ?? {};
    if (event.type === 'test:fail' && file && details?.error?.failureType !== 'subtestsFailed') {
      yield `${JSON.stringify({ failed: { file, name, error: firstLines(details?.error) } })}\n`;
    }
    if (!file || nesting !== 0 || typeof details?.duration_ms !== 'number') continue;
    if (name === file) ownDuration.set(file, details.duration_ms);
    else summed.set(file, (summed.get(file) ?? 0) + details.duration_ms);
  }
  for (const file of new Set([...summed.keys(), ...ownDuration.keys()])) {
    yield `${JSON.stringify({ file, ms: Math.round(ownDuration.get(file) ?? summed.get(file) ?? 0) })}\n`;
  }
}

/** The failure's message (the test runner wraps the thrown error as its cause), a few lines of it. */
function firstLines(error) {
  const thrown = error?.cause ?? error;
  const text = String(thrown?.stack ?? thrown?.message ?? thrown ?? '');
  return text.split('\n').slice(0, 8).join('\n');
}
