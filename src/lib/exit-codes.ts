// Exit codes are part of the CLI's contract: scripts branch on them.
export const ExitCode = {
  ok: 0,
  error: 1,
  usage: 2,
  /** `svc emulator status`: no emulator runs for the data dir (a script's "is it up?"). */
  notRunning: 3,
  unauthorized: 4,
  forbidden: 5,
  /** `svc emulator exec`: the command could not be run (the shell's codes: not executable, not found). */
  commandNotExecutable: 126,
  commandNotFound: 127,
} as const;

export type ExitCodeValue = (typeof ExitCode)[keyof typeof ExitCode];
