// Opens the embedded PostgreSQL (PGlite) with settings sized for one developer's emulator.
import type {PGlite} from '@electric-sql/pglite';
import {readFileSync} from 'node:fs';
import {createRequire} from 'node:module';
import {dirname, join} from 'node:path';
import {setFlagsFromString} from 'node:v8';

// 16 MB of shared buffers instead of PostgreSQL's 128 MB: the emulator's data is small, and this
// roughly halves the resident memory of an idle emulator.
export const TUNING = ['-c', 'shared_buffers=16MB', '-c', 'max_connections=5'];
// A database held in memory keeps its write-ahead log there too: checkpoints at 64 MB of log instead of
// PostgreSQL's 1 GB keep a busy in-memory emulator from holding up to a gigabyte of log it never needs.
export const IN_MEMORY_TUNING = ['-c', 'min_wal_size=32MB', '-c', 'max_wal_size=64MB'];

// V8 recompiles a WebAssembly function with its optimising compiler once it has run about this many
// bytes of code (its default). Starting PostgreSQL runs thousands of functions a handful of times
// each; at the default they all cross it, and the optimising compiler takes about half the CPU time
// of opening. A module keeps the budget it was compiled with, so PGlite's is compiled with a
// thousandfold budget: only code that stays hot is optimised (the delivery bench, mostly database work,
// runs as fast with it). At a hundredfold, one large function (37 kB of wasm) still crossed it while the
// emulator started, and its 60 ms compile in the background took a core from the start and held up the
// exit of a process that stopped soon after (`emulator exec -- true` waited for it).
const TIERING_BUDGET = '--wasm-tiering-budget';
const DEFAULT_TIERING_BUDGET = 1_800_000;
const PGLITE_TIERING_BUDGET = 1000 * DEFAULT_TIERING_BUDGET;
// With validation lazy too, each function is checked when first called (PostgreSQL calls a fraction
// of its code) and the compile takes a fraction of the time.
const LAZY_VALIDATION = '--wasm-lazy-validation';

/** Whether the process was started with this V8 flag (then it is left as given). */
function userSetsFlag(name: string): boolean {
  const given = [...process.execArgv, ...(process.env.NODE_OPTIONS ?? '').split(/\s+/)];
  const plain = name.slice(2);
  return given.some((arg) => {
    const flag = arg.replace(/^--(no-)?/, '').replaceAll('_', '-');
    return flag === plain || flag.startsWith(`${plain}=`);
  });
}

/** Compiled code is immutable, so one module serves every database this process opens. */
const compiled: {module?: WebAssembly.Module} = {};

/**
 * PGlite's wasm, compiled synchronously. Left to itself PGlite compiles it asynchronously, and Node
 * then blocks its event loop once the database is open until V8's background compile tasks have
 * all finished, a pause the first requests would feel. The synchronous compile is lazy per function. The V8
 * flags above only matter while a module compiles, and this compile is synchronous, so they are
 * changed for exactly that long and nothing else in the process sees them.
 */
export function pgliteWasmModule(): WebAssembly.Module {
  if (compiled.module) return compiled.module;
  // The package does not export its files; the wasm lies beside its entry point.
  const entry = createRequire(import.meta.url).resolve('@electric-sql/pglite');
  const bytes = readFileSync(join(dirname(entry), 'pglite.wasm'));
  const budget = !userSetsFlag(TIERING_BUDGET);
  const lazy = !userSetsFlag(LAZY_VALIDATION);
  if (budget) setFlagsFromString(`${TIERING_BUDGET}=${PGLITE_TIERING_BUDGET}`);
  if (lazy) setFlagsFromString(LAZY_VALIDATION);
  try {
    compiled.module = new WebAssembly.Module(bytes);
  } finally {
    if (budget) setFlagsFromString(`${TIERING_BUDGET}=${DEFAULT_TIERING_BUDGET}`);
    if (lazy) setFlagsFromString('--no-wasm-lazy-validation');
  }
  return compiled.module;
}

/** dataDir undefined = memory only. PGlite is imported lazily so CLI commands that never open it stay fast. */
export async function openPGlite(dataDir: string | undefined): Promise<PGlite> {
  const {PGlite} = await import('@electric-sql/pglite');
  const defaults = (PGlite as unknown as {defaultStartParams?: string[]}).defaultStartParams ?? [];
  return PGlite.create(dataDir, {
    pgliteWasmModule: pgliteWasmModule(),
    startParams: [...defaults, ...TUNING],
  });
}
