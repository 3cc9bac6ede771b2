// Base for every command: `--json`, `--debug`, and the one place that renders errors with the contract's exit codes.
import {Command, Errors, ux} from '@oclif/core';
import {jsonText} from '../definitions.js';
import {debugEnabled, debugReport, toUserError} from './error-mapper.js';
import {debugFlag} from './flags.js';
import {currentSvcCommand, spellSvc} from './invocation.js';
import {renderError} from './render-error.js';

export interface JsonError {
  error: {code: string; message: string};
}

export abstract class BaseCommand extends Command {
  static override enableJsonFlag = true;
  static override baseFlags = {debug: debugFlag};

  /** Hints and notes for a person: every command quoted in them runs as printed from where svc was run. */
  override logToStderr(message = '', ...args: unknown[]): void {
    super.logToStderr(spellSvc(message, currentSvcCommand()), ...args);
  }

  /** A warning on one line of its own, unwrapped and without oclif's ` ›` prefix, like errors. */
  override warn(input: string | Error): string | Error {
    if (!this.jsonEnabled()) {
      const text = typeof input === 'string' ? input : input.message;
      process.stderr.write(`Warning: ${spellSvc(text, currentSvcCommand())}\n`);
    }
    return input;
  }

  /** The one place `--json` output is written: text from outside shows no control or invisible character raw. */
  override logJson(json: unknown): void {
    ux.stdout(ux.colorizeJson(jsonText(json, 2), {pretty: false, theme: this.config.theme?.json}));
  }

  protected override toErrorJson(err: unknown): JsonError {
    const e = toUserError(err);
    return {error: {code: e.code, message: e.message}};
  }

  /** For a flag this command does not have, the one it has that is spelled most like it (`--jsn`: `--json`). */
  private flagsMeant(err: Error): string[] {
    const unknown = (err as {flags?: unknown}).flags;
    if (!(err instanceof Errors.CLIError) || !Array.isArray(unknown)) return [];
    const known = [
      ...Object.keys(this.ctor.flags ?? {}),
      ...Object.keys(this.ctor.baseFlags ?? {}),
      'json',
      'help',
    ];
    return unknown.flatMap((given: unknown) => {
      const name = String(given).replace(/^--?/, '').replace(/=.*$/, '');
      const best = known
        .map((k) => ({k, d: editDistance(name, k)}))
        .sort((a, b) => a.d - b.d)
        .find((c) => c.d <= Math.max(1, Math.floor(c.k.length / 3)));
      return best
        ? [
            `Did you mean --${best.k}? (\`svc ${this.id?.replaceAll(':', ' ') ?? ''} --help\` lists every flag)`,
          ]
        : [];
    });
  }

  protected override async catch(err: Error & {exitCode?: number}): Promise<unknown> {
    // `this.exit(n)` is how a command asks for an exit code, not a failure.
    if (err instanceof Errors.ExitError) throw err;
    const e = toUserError(err);
    e.suggestions.push(...this.flagsMeant(err));
    // Where it happened goes to stderr: a person asked for it, and stdout stays the JSON document.
    if (debugEnabled(this.argv, process.env)) process.stderr.write(`${debugReport(err)}\n`);
    process.exitCode = e.exitCode;
    // Every command quoted in the message or a next step runs as printed from here.
    const svc = currentSvcCommand();
    const message = spellSvc(e.message, svc);
    if (this.jsonEnabled()) {
      this.logJson({error: {code: e.code, message}});
      return;
    }
    process.stderr.write(
      renderError(
        message,
        e.suggestions.map((s) => spellSvc(s, svc)),
      ),
    );
    // Printed above; oclif's printer would wrap it at 80 columns behind " ›   " prefixes, even in a pipe.
    throw new Errors.ExitError(e.exitCode);
  }
}

/** Letters to insert, delete or change to turn one word into the other. */
function editDistance(a: string, b: string): number {
  let prev = Array.from({length: b.length + 1}, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) {
      row[j] = Math.min(
        (prev[j] as number) + 1,
        (row[j - 1] as number) + 1,
        (prev[j - 1] as number) + (a[i - 1] === b[j - 1] ? 0 : 1),
      );
    }
    prev = row;
  }
  return prev[b.length] as number;
}
