/**
 * Gathers the calls made within one turn of the event loop into one: `run` gets their inputs together (at most
 * `maxBatch` at a time) and gives back one result per input, in order; each call resolves with its own, or
 * rejects with the batch's error. The worker runs its attempts' reads and writes through it: attempts that start
 * or end together (BullMQ hands a worker its jobs in bursts, and a receiver's answers arrive in bursts) share
 * one statement, one round trip and one commit instead of one each, which is what the delivery's time went to.
 */
export function batched<I, O>(run: (inputs: I[]) => Promise<O[]>, maxBatch = 100): (input: I) => Promise<O> {
  let pending: Array<{ input: I; resolve: (output: O) => void; reject: (error: unknown) => void }> = [];
  const flush = () => {
    const taken = pending;
    pending = [];
    for (let offset = 0; offset < taken.length; offset += maxBatch) {
      const batch = taken.slice(offset, offset + maxBatch);
      run(batch.map((call) => call.input)).then(
        (outputs) => {
          for (const [index, call] of batch.entries()) call.resolve(outputs[index] as O);
        },
        (error: unknown) => {
          for (const call of batch) call.reject(error);
        },
      );
    }
  };
  return (input) =>
    new Promise<O>((resolve, reject) => {
      if (pending.length === 0) setImmediate(flush);
      pending.push({ input, resolve, reject });
    });
}
