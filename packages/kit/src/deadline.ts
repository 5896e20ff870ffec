/**
 * The promise's outcome, or a rejection with `message` once `timeoutMs` has passed: a probe or a start
 * that waits on a dependency answers within its deadline, never hangs with it. The timer is always cleared.
 */
export async function withDeadline<T>(promise: Promise<T>, timeoutMs: number, message: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      promise,
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(message)), timeoutMs);
      }),
    ]);
  } finally {
    clearTimeout(timer);
  }
}
