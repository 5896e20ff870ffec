import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import type {
  ErrorCapturingSqlMigrationAwareDriverAdapterFactory,
  SqlMigrationAwareDriverAdapterFactory,
} from '@prisma/driver-adapter-utils';
import { bindMigrationAwareSqlAdapterFactory } from '@prisma/driver-adapter-utils';
import type { SchemaEngine } from '@prisma/schema-engine-wasm';
// The package's main entry imports the .wasm file as an ES module, which Node 20 cannot do; its
// wasm-bindgen glue is importable on its own, and we instantiate the WebAssembly module ourselves.
import * as bindings from '@prisma/schema-engine-wasm/schema_engine_bg';

export type { MigrationList, SchemaFilter } from '@prisma/schema-engine-wasm';

/** Tables and enums the engine must leave alone: none, each service owns its whole Postgres schema. */
export const noFilter = { externalTables: [], externalEnums: [] };

// @types/node 20 does not declare the WebAssembly global (lib.dom does); the part used here.
interface WebAssemblyApi {
  instantiate(
    bytes: Uint8Array,
    imports: Record<string, Record<string, unknown>>,
  ): Promise<{ instance: { exports: Record<string, unknown> } }>;
  RuntimeError: new () => Error;
}
const wasm = (globalThis as unknown as { WebAssembly: WebAssemblyApi }).WebAssembly;

const panics = { message: '' };
let loaded: Promise<void> | undefined;

function loadWasm(): Promise<void> {
  loaded ??= (async () => {
    // The engine's Rust panic hook writes the panic message into this global before the WebAssembly
    // trap. Without it the hook itself throws and a call can hang instead of failing.
    (globalThis as { PRISMA_WASM_PANIC_REGISTRY?: unknown }).PRISMA_WASM_PANIC_REGISTRY = {
      set_message(message: string) {
        panics.message = message;
      },
    };
    const require = createRequire(import.meta.url);
    const wasmPath = require.resolve('@prisma/schema-engine-wasm/schema_engine_bg').replace(/\.js$/, '.wasm');
    const glue: Record<string, unknown> = { ...bindings };
    for (const name of Object.keys(glue)) {
      // The engine arms a timer (the 10 s advisory-lock timeout) and never clears it: unreferenced, it
      // cannot keep a finished process alive for those 10 s. Real waits always have a socket open.
      if (name.startsWith('__wbg_setTimeout_')) glue[name] = (callback: () => void, ms: number) => setTimeout(callback, ms >>> 0).unref();
    }
    const imports = { './schema_engine_bg.js': glue };
    const { instance } = await wasm.instantiate(await readFile(wasmPath), imports);
    bindings.__wbg_set_wasm(instance.exports);
    const start = instance.exports.__wbindgen_start;
    if (typeof start === 'function') start();
  })();
  return loaded;
}

/** What went wrong inside the schema engine, with Prisma's error code (P3xxx) when it gave one. */
export class SchemaEngineError extends Error {
  override name = 'SchemaEngineError';
  constructor(
    message: string,
    readonly code?: string,
    options?: ErrorOptions,
  ) {
    super(message, options);
  }
}

export interface SchemaFile {
  path: string;
  content: string;
}

type EngineMethod = Exclude<keyof SchemaEngine, 'free' | 'debugPanic' | typeof Symbol.dispose>;
type Input<M extends EngineMethod> = Parameters<SchemaEngine[M]>[0];
type Output<M extends EngineMethod> = Awaited<ReturnType<SchemaEngine[M]>>;

/** One schema engine bound to one driver adapter factory. Call `close()` when done. */
export interface Engine {
  call<M extends EngineMethod>(method: M, input: Input<M>): Promise<Output<M>>;
  close(): void;
}

export async function openEngine(factory: SqlMigrationAwareDriverAdapterFactory, schemaFiles: SchemaFile[]): Promise<Engine> {
  await loadWasm();
  const bound = bindMigrationAwareSqlAdapterFactory(factory);
  const log = (line: string) => {
    if (process.env.VOICE_DB_DEBUG) process.stderr.write(`schema-engine: ${line}\n`);
  };
  const datamodels = schemaFiles.length > 0 ? schemaFiles.map((file): [string, string] => [file.path, file.content]) : undefined;
  const engine = await bindings.SchemaEngine.new({ datamodels }, log, bound).catch((error: unknown) => {
    throw toEngineError(error, bound);
  });
  return {
    async call<M extends EngineMethod>(method: M, input: Input<M>): Promise<Output<M>> {
      try {
        // Called as a method: the wasm-bindgen class reads its pointer from `this`.
        const run = engine[method] as unknown as (this: SchemaEngine, value: Input<M>) => Promise<Output<M>>;
        return await run.call(engine, input);
      } catch (error) {
        throw toEngineError(error, bound);
      }
    },
    close() {
      engine.free();
    },
  };
}

/**
 * Errors arrive in three shapes: an engine error (with a Prisma code when it is user-facing) whose text
 * may point at a JavaScript error the adapter threw ("External error id#N", kept in the adapter's
 * registry), or a WebAssembly trap after a panic.
 */
function toEngineError(error: unknown, factory: ErrorCapturingSqlMigrationAwareDriverAdapterFactory): Error {
  if (error instanceof wasm.RuntimeError) {
    // A panicked instance is not safe to reuse: load a fresh one next time.
    loaded = undefined;
    return new SchemaEngineError(`schema engine panicked: ${panics.message || error.message}`, undefined, { cause: error });
  }
  const { message: rawMessage, code } = (typeof error === 'object' && error !== null ? error : {}) as { message?: unknown; code?: unknown };
  const text = typeof rawMessage === 'string' ? rawMessage : String(error);
  // The engine appends a span trace ("   0: schema_engine_wasm::…"): Rust call sites, noise for the user
  // except for the migration it names.
  const [summary = '', trace = ''] = text.split(/\n(?=\s+0: )/);
  let message = summary.replace(/^external connector error\n/, '').trim();
  const external = /External error id#(\d+)/.exec(message);
  const original = external ? factory.errorRegistry.consumeError(Number(external[1]))?.error : undefined;
  if (external && original instanceof Error) message = message.replace(external[0], original.message);
  const migration = /migration_name="([^"]+)"/.exec(trace)?.[1];
  if (migration) message = `migration ${migration}: ${message}`;
  return new SchemaEngineError(message, typeof code === 'string' ? code : undefined, { cause: original ?? error });
}
