import { z } from 'zod';

/** Background work a deployable runs beside its API: a BullMQ worker, a JetStream consumer, a timer. */
export interface BackgroundWork {
  /** Stops taking new work and resolves once the work in hand is done. */
  close(): Promise<unknown>;
}

/** Starts one kind of background work from the app's dependencies. */
export type WorkStarter = () => BackgroundWork | Promise<BackgroundWork>;

/**
 * The `WORKERS` variable of a deployable that runs the given kinds of background work: `all` (the default,
 * everything in one process), `none` (an API-only replica) or a comma-separated list of kinds (a worker
 * replica, or any split). A kind the deployable does not have is refused, naming the ones it has, so a
 * typo cannot quietly turn a worker replica into an idle one.
 */
export function workersSchema<const K extends string>(kinds: readonly K[]) {
  return z
    .string()
    .default('all')
    .transform((value, context): ReadonlySet<K> => {
      const names = value
        .split(',')
        .map((name) => name.trim())
        .filter((name) => name.length > 0);
      if (names.length === 1 && names[0] === 'all') return new Set(kinds);
      if (names.length === 1 && names[0] === 'none') return new Set();
      const unknown = names.filter((name) => !(kinds as readonly string[]).includes(name));
      if (unknown.length > 0 || names.length === 0) {
        context.addIssue({
          code: 'custom',
          message: `${unknown.length > 0 ? `unknown worker kind ${unknown.map((name) => `"${name}"`).join(', ')}` : 'empty'}; use all, none or a list of: ${kinds.join(', ')}`,
        });
        return z.NEVER;
      }
      return new Set(names as K[]);
    });
}

/** What startWorkers needs of a fastify instance: a hook that runs when it closes. */
interface Closable {
  addHook(name: 'onClose', hook: () => Promise<void>): unknown;
}

/**
 * Starts the enabled kinds of background work, in the order `starters` lists them, and closes them when the
 * app closes, in reverse order (so work that feeds another stops before it), before the process closes the
 * connections they use. Every deployable starts its workers this way, from `buildApp`.
 */
export async function startWorkers<K extends string>(
  app: Closable,
  enabled: ReadonlySet<NoInfer<K>>,
  starters: Record<K, WorkStarter>,
): Promise<void> {
  const running: BackgroundWork[] = [];
  // Registered first: work started before a later starter fails is still closed with the app.
  app.addHook('onClose', async () => {
    for (const work of running.reverse()) await work.close();
  });
  for (const kind of Object.keys(starters) as K[]) {
    if (enabled.has(kind)) running.push(await starters[kind]());
  }
}
