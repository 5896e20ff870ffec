// A reporter for node's test runner (scripts/test.mjs adds it beside the usual one): how long each test file
// ran, from its start to the last thing it reported (or to its failure, a timeout included), as one JSON
// line per file once every file has finished. Wall-clock time as the run saw it, hooks and imports included.
export default async function* fileDurations(source) {
  const started = new Map();
  const finished = new Map();
  for await (const event of source) {
    const file = event.data?.file;
    // Every file is enqueued at the start; it starts when it is dequeued (TEST_CONCURRENCY at a time).
    if (!file || (event.type === 'test:enqueue' && event.data.name === file)) continue;
    const now = performance.now();
    if (!started.has(file)) started.set(file, now);
    finished.set(file, now);
    // The file itself failing (a timeout, a crash) reports its own duration.
    if ((event.type === 'test:fail' || event.type === 'test:pass') && event.data.name === file && event.data.nesting === 0) {
      finished.set(file, started.get(file) + event.data.details.duration_ms);
    }
  }
  for (const [file, start] of started) yield `${JSON.stringify({ file, ms: Math.round(finished.get(file) - start) })}\n`;
}
