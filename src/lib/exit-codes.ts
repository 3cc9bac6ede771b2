// Exit codes are part of the CLI's contract: scripts branch on them. Every command exits by this table, and the
// CLI docs (docs/cli.md, "Exit codes") print it row for row (test/docs/exit-codes.test.ts keeps them equal).
export const ExitCode = {
  ok: 0,
  error: 1,
  usage: 2,
  /** No emulator runs where the command looked (`svc emulator status`, and every command that needs one). */
  notRunning: 3,
  unauthorized: 4,
  forbidden: 5,
  /** `svc emulator exec`: the command could not be run (the shell's codes: not executable, not found). */
  commandNotExecutable: 126,
  commandNotFound: 127,
} as const;

export type ExitCodeValue = (typeof ExitCode)[keyof typeof ExitCode];

export interface ExitCodeRow {
  /** The situation, as the docs name it. */
  situation: string;
  code: ExitCodeValue;
  /** When a command exits so. */
  when: string;
  /** The `--json` error codes of the situation: what tells apart situations that share an exit code. */
  errorCodes: readonly string[];
}

/**
 * What each exit code means, one row per situation: the table scripts read in docs/cli.md. `svc emulator exec`
 * exits with its command's own code, or 126 / 127 when that command cannot be run or does not exist.
 */
export const EXIT_CODE_TABLE: readonly ExitCodeRow[] = [
  {situation: 'success', code: ExitCode.ok, when: 'the command did what it was asked', errorCodes: []},
  {
    situation: 'usage',
    code: ExitCode.usage,
    when: 'the command line is wrong, found before anything is sent: an unknown command or flag, a missing argument, a value of the wrong shape (a duration like `10x`, a time, an id), no API address, `svc tui` without a terminal, a scenario file that is wrong (`svc scenario run`: every problem at its line and column)',
    errorCodes: ['usage', 'no_api_url', 'invalid_scenario'],
  },
  {
    situation: 'no emulator',
    code: ExitCode.notRunning,
    when: 'a command that needs a running emulator found none where it looked: `svc emulator status`, `svc trigger`, `svc open`, `svc emulator …` (`svc emulator stop` exits 0: nothing is left to stop)',
    errorCodes: ['emulator_not_running'],
  },
  {
    situation: 'not found',
    code: ExitCode.error,
    when: 'the id names nothing in the org or the emulator: an endpoint, a delivery, a key, an org',
    errorCodes: ['not_found'],
  },
  {
    situation: 'refused: authentication',
    code: ExitCode.unauthorized,
    when: 'no key for the address, or the API refused the key (401: revoked, expired, of another deployment)',
    errorCodes: ['not_logged_in', 'unauthorized'],
  },
  {
    situation: 'refused: forbidden',
    code: ExitCode.forbidden,
    when: 'the key or token may not do this (403)',
    errorCodes: ['forbidden'],
  },
  {
    situation: 'other failure',
    code: ExitCode.error,
    when: 'anything else: the API or emulator refused the request as invalid or in conflict (400, 409), a network or server failure, a verdict of failure (`svc doctor`, `svc webhooks verify`, `diagnose`, `test-receiver`, `conformance`, an expectation of `svc scenario run`)',
    errorCodes: ['invalid_request', 'conflict', 'network_error', '…'],
  },
];
