// Opens the embedded PostgreSQL (PGlite) with settings sized for one developer's emulator.
import type {PGlite} from '@electric-sql/pglite';
import {readFileSync} from 'node:fs';
import {createRequire} from 'node:module';
import {dirname, join} from 'node:path';
import {setFlagsFromString} from 'node:v8';

// 16 MB of shared buffers instead of PostgreSQL's 128 MB: the emulator's data is small, and this
// roughly halves the resident memory of an idle emulator.
const TUNING = ['-c', 'shared_buffers=16MB', '-c', 'max_connections=5'];

// V8 recompiles a WebAssembly function with its optimising compiler once it has run about this many
// bytes of code (its default). Starting PostgreSQL runs thousands of functions a handful of times
// each; at the default they all cross it and the optimising compiler takes about half the CPU time
// of opening (measured ~1.0 s against ~0.55 s of process CPU). While a database opens the budget is
// raised a hundredfold, so only code that stays hot afterwards is optimised.
const DEFAULT_TIERING_BUDGET = 1_800_000;
const OPENING_TIERING_BUDGET = 100 * DEFAULT_TIERING_BUDGET;
const TIERING_FLAG = '--wasm-tiering-budget';

/** The budget is one process-wide V8 flag; concurrent opens (tests) share one raise. */
const tiering = {opening: 0};

function userSetsTiering(): boolean {
  const given = [...process.execArgv, ...(process.env.NODE_OPTIONS ?? '').split(/\s+/)];
  return given.some((arg) => arg.startsWith(TIERING_FLAG) || arg.startsWith('--wasm_tiering_budget'));
}

async function withStartupTiering<T>(open: () => Promise<T>): Promise<T> {
  if (userSetsTiering()) return open();
  if (tiering.opening++ === 0) setFlagsFromString(`${TIERING_FLAG}=${OPENING_TIERING_BUDGET}`);
  try {
    return await open();
  } finally {
    if (--tiering.opening === 0) setFlagsFromString(`${TIERING_FLAG}=${DEFAULT_TIERING_BUDGET}`);
  }
}

/** Compiled code is immutable, so one module serves every database this process opens. */
const compiled: {module?: WebAssembly.Module} = {};

/**
 * PGlite's wasm, compiled synchronously. Left to itself PGlite compiles it asynchronously, and Node
 * then blocks its event loop once the database is open until V8's background compile tasks have
 * all finished (measured ~150 ms on 2 cores). The synchronous compile is lazy per function and
 * takes ~60 ms.
 */
function pgliteWasmModule(): WebAssembly.Module {
  if (!compiled.module) {
    // The package does not export its files; the wasm lies beside its entry point.
    const entry = createRequire(import.meta.url).resolve('@electric-sql/pglite');
    compiled.module = new WebAssembly.Module(readFileSync(join(dirname(entry), 'pglite.wasm')));
  }
  return compiled.module;
}

/** dataDir undefined = memory only. PGlite is imported lazily so CLI commands that never open it stay fast. */
export async function openPGlite(dataDir: string | undefined): Promise<PGlite> {
  const {PGlite} = await import('@electric-sql/pglite');
  const defaults = (PGlite as unknown as {defaultStartParams?: string[]}).defaultStartParams ?? [];
  return withStartupTiering(() =>
    PGlite.create(dataDir, {
      pgliteWasmModule: pgliteWasmModule(),
      startParams: [...defaults, ...TUNING],
    }),
  );
}
