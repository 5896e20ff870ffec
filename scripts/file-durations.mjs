// A reporter for node's test runner (scripts/test.mjs adds it beside the usual one): how long each test file
// ran, as one JSON line per file once every file has finished. The runner reports the files in order and
// holds back the events of a file that ran beside an earlier one, so the time an event arrives says little;
// each file's time is the sum of its top-level tests' and suites' own durations (hooks inside them
// included), or, when the file itself failed (a timeout, a crash), the duration reported for the file.
export default async function* fileDurations(source) {
  const summed = new Map();
  const ownDuration = new Map();
  for await (const event of source) {
    if (event.type !== 'test:pass' && event.type !== 'test:fail') continue;
    const { file, name, nesting, details } = event.data ?? {};
    if (!file || nesting !== 0 || typeof details?.duration_ms !== 'number') continue;
    if (name === file) ownDuration.set(file, details.duration_ms);
    else summed.set(file, (summed.get(file) ?? 0) + details.duration_ms);
  }
  for (const file of new Set([...summed.keys(), ...ownDuration.keys()])) {
    yield `${JSON.stringify({ file, ms: Math.round(ownDuration.get(file) ?? summed.get(file) ?? 0) })}\n`;
  }
}
