// Base for every command: `--json`, one place that renders errors, and the contract's exit codes.
import {Command, Errors} from '@oclif/core';
import {UserError} from './errors.js';
import {ExitCode} from './exit-codes.js';

export interface JsonError {
  error: {code: string; message: string};
}

/** Anything thrown by a service becomes a UserError; unknown errors keep their message but not their stack. */
export function toUserError(err: unknown): UserError {
  if (err instanceof UserError) return err;
  const candidate = err as {code?: unknown; exitCode?: unknown; message?: unknown; suggestions?: unknown};
  if (err instanceof Errors.CLIError) {
    const exit = (err as Errors.CLIError).oclif?.exit;
    return new UserError(err.message, {
      code: exit === ExitCode.usage ? 'usage' : 'error',
      exitCode: exit === ExitCode.usage ? ExitCode.usage : ExitCode.error,
    });
  }
  if (err instanceof Error && typeof candidate.exitCode === 'number' && typeof candidate.code === 'string') {
    return new UserError(err.message, {
      code: candidate.code,
      exitCode: candidate.exitCode as UserError['exitCode'],
      suggestions: Array.isArray(candidate.suggestions) ? (candidate.suggestions as string[]) : [],
    });
  }
  return new UserError(err instanceof Error ? err.message : String(err), {code: 'error'});
}

export abstract class BaseCommand extends Command {
  static override enableJsonFlag = true;

  protected override toErrorJson(err: unknown): JsonError {
    const e = toUserError(err);
    return {error: {code: e.code, message: e.message}};
  }

  protected override async catch(err: Error & {exitCode?: number}): Promise<unknown> {
    // oclif's own parse errors (unknown flag, missing argument) are usage errors: exit 2.
    const parseExit = (err as Errors.CLIError).oclif?.exit;
    const e = parseExit === ExitCode.usage && !(err instanceof UserError) ? undefined : toUserError(err);
    if (!e) {
      if (this.jsonEnabled()) {
        process.exitCode = ExitCode.usage;
        this.logJson({error: {code: 'usage', message: err.message}});
        return;
      }
      throw err;
    }
    process.exitCode = e.exitCode;
    if (this.jsonEnabled()) {
      this.logJson(this.toErrorJson(e));
      return;
    }
    throw new Errors.CLIError(e.message, {exit: e.exitCode, suggestions: e.suggestions});
  }
}
