// One emulator process for the multi-process tests: the built library's startEmulator on the PostgreSQL named by
// SVC_EMULATOR_DATABASE_URL, with the vault key of SVC_EMULATOR_VAULT_KEY (shared by every process, as a team shares
// it). argv[2] holds the options a test tunes (clock, lease and attempt times). Prints one JSON line when ready and
// stops cleanly on SIGTERM.
import {startEmulator} from '../../../dist/src/emulator/index.js';

const tuning = JSON.parse(process.argv[2] ?? '{}');
const emulator = await startEmulator({
  port: 0,
  inMemory: true,
  databaseUrl: process.env.SVC_EMULATOR_DATABASE_URL,
  vaultKey: Buffer.from(process.env.SVC_EMULATOR_VAULT_KEY ?? '', 'base64'),
  allowLocalEndpoints: true,
  clock: tuning.clock,
  clockStart: tuning.clockStart ? new Date(tuning.clockStart) : undefined,
  signatureClock: tuning.signatureClock,
  delivery: tuning.delivery,
  log: (line) => process.stderr.write(`${line}\n`),
});
process.stdout.write(
  `${JSON.stringify({api_url: emulator.apiUrl, admin_token: emulator.adminToken, org_id: emulator.orgId, pid: process.pid})}\n`,
);
process.once('SIGTERM', () => {
  emulator.stop().then(() => process.exit(0));
});
