// Opens the embedded PostgreSQL (PGlite) with settings sized for one developer's emulator.
import type {PGlite} from '@electric-sql/pglite';

// 16 MB of shared buffers instead of PostgreSQL's 128 MB: the emulator's data is small, and this
// roughly halves the resident memory of an idle emulator.
const TUNING = ['-c', 'shared_buffers=16MB', '-c', 'max_connections=5'];

/** dataDir undefined = memory only. PGlite is imported lazily so CLI commands that never open it stay fast. */
export async function openPGlite(dataDir: string | undefined): Promise<PGlite> {
  const {PGlite} = await import('@electric-sql/pglite');
  const defaults = (PGlite as unknown as {defaultStartParams?: string[]}).defaultStartParams ?? [];
  return PGlite.create(dataDir, {startParams: [...defaults, ...TUNING]});
}
