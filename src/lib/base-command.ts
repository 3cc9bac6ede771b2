// Base for every command: `--json`, `--debug`, the command's session, the one output API, and the one place that
// renders errors with the contract's exit codes. Commands write nothing themselves: a result goes through
// `show` (JSON with --json, text otherwise), a stream's items through `showEach`, other stdout text through
// `say`, notes for a person through `note`, warnings through `warn`. Every write reaches process.stdout or
// process.stderr as it is at that moment (never a copy taken earlier): the in-process runner lends them per run.
import {Command, Errors, type Interfaces, ux} from '@oclif/core';
import {jsonText} from '../definitions.js';
import {debugEnabled, debugReport, toUserError} from './error-mapper.js';
import {debugFlag} from './flags.js';
import {currentSvcCommand, spellSvc} from './invocation.js';
import {colorEnabled, painter, type Streams, type TextView} from './output.js';
import {renderError} from './render-error.js';
import {type ClientSettings, type CommandSession, openSessionFor} from './session.js';

export interface JsonError {
  error: {code: string; message: string};
}

export interface SessionOptions {
  /** Transport settings of its client; those of the first call hold for the command's one session. */
  client?: ClientSettings;
  /** What the credentials store repairs on its own is said as a warning (`svc auth status`). */
  warnings?: boolean;
  /** A session opened afresh, for a server that runs on while the user logs in elsewhere (`svc mcp`). */
  fresh?: boolean;
}

export interface NoteOptions {
  /** Said with --json too (stdout stays the JSON document or stream): a stream's own news, a warning. */
  evenWithJson?: boolean;
  /** Text from elsewhere (the emulator's own log lines), written as it is: no command in it is respelled. */
  asIs?: boolean;
}

/** oclif's bound on parsed flags and args (its FlagOutput and ArgOutput, which it does not export). */
// biome-ignore lint/suspicious/noExplicitAny: oclif's own bound, restated
type ParsedValues = {[name: string]: any};

export abstract class BaseCommand extends Command {
  static override enableJsonFlag = true;
  static override baseFlags = {debug: debugFlag};

  #flags: Record<string, unknown> = {};
  #session: Promise<CommandSession> | undefined;

  /** oclif's parse, keeping the flags for the session (its --api-url). */
  protected override async parse<F extends ParsedValues, B extends ParsedValues, A extends ParsedValues>(
    options?: Interfaces.Input<F, B, A>,
    argv?: string[],
  ): Promise<Interfaces.ParserOutput<F, B, A>> {
    const parsed = await super.parse(options, argv);
    this.#flags = parsed.flags;
    return parsed;
  }

  /**
   * The command's session: the key and address from its env and its --api-url, and a client for them. Opened on
   * first use and the same after; an opening that failed is forgotten, so the next call tries again (the TUI keeps
   * trying until a login appears).
   */
  protected session(options: SessionOptions = {}): Promise<CommandSession> {
    if (options.fresh) return this.#openSession(options);
    if (!this.#session) {
      const opening = this.#openSession(options);
      this.#session = opening;
      opening.catch(() => {
        if (this.#session === opening) this.#session = undefined;
      });
    }
    return this.#session;
  }

  #openSession(options: SessionOptions): Promise<CommandSession> {
    const apiUrl = this.#flags['api-url'];
    return openSessionFor({
      env: process.env,
      apiUrl: typeof apiUrl === 'string' ? apiUrl : undefined,
      client: options.client,
      warn: options.warnings ? (message) => this.warn(message) : undefined,
    });
  }

  /** The process's streams as they are now, for what only a terminal or a live run needs (TUI, listen, start). */
  protected streams(): Streams {
    return {stdin: process.stdin, stdout: process.stdout, stderr: process.stderr, env: process.env};
  }

  /** What text for stdout is drawn for: a terminal or not, its width, and how to paint. */
  protected textView(): TextView {
    const {stdout, env} = this.streams();
    return {
      isTTY: stdout.isTTY === true,
      columns: stdout.columns,
      env,
      paint: painter(colorEnabled(stdout, env)),
    };
  }

  /** The command's result: with --json the one JSON document, otherwise the text `render` draws for stdout. */
  protected async show<T>(
    result: T,
    render: (result: T, view: TextView) => string | Promise<string>,
  ): Promise<void> {
    if (this.jsonEnabled()) this.logJson(result);
    else this.say(await render(result, this.textView()));
  }

  /** One item of a stream (a followed log, a watch): with --json one JSON line, otherwise `render`'s text. */
  protected showEach<T>(item: T, render: (item: T, view: TextView) => string): void {
    this.say(this.jsonEnabled() ? `${jsonText(item)}\n` : render(item, this.textView()));
  }

  /** Text for stdout, byte for byte as given, --json or not (a document that is the result either way). */
  protected say(text: string): void {
    if (text !== '') process.stdout.write(text);
  }

  /**
   * A note for a person on its own line on stderr (a hint, progress), every command quoted in it spelled as svc
   * was run. Not with --json, unless `evenWithJson`; nothing for undefined (a service had nothing to say).
   */
  protected note(text: string | undefined, options: NoteOptions = {}): void {
    if (text === undefined || (this.jsonEnabled() && !options.evenWithJson)) return;
    process.stderr.write(`${options.asIs ? text : spellSvc(text, currentSvcCommand())}\n`);
  }

  /** A note worked out only when it will be shown: with --json nothing is computed or loaded for it. */
  protected async noteWhenShown(make: () => Promise<string | undefined>): Promise<void> {
    if (!this.jsonEnabled()) this.note(await make());
  }

  /** A warning on one line of its own, unwrapped and without oclif's ` ›` prefix, like errors. */
  override warn(input: string | Error, options: NoteOptions = {}): string | Error {
    if (!this.jsonEnabled() || options.evenWithJson) {
      const text = typeof input === 'string' ? input : input.message;
      process.stderr.write(`Warning: ${spellSvc(text, currentSvcCommand())}\n`);
    }
    return input;
  }

  /** The one place `--json` output is written: text from outside shows no control or invisible character raw. */
  override logJson(json: unknown): void {
    const text = jsonText(json, 2);
    // oclif colours JSON only by a theme file's colours: without one, its tokenizer (a few ms, and 30 ms for a
    // long list) would hand back the same text.
    const theme = this.config.theme?.json;
    ux.stdout(theme ? ux.colorizeJson(text, {pretty: false, theme}) : text);
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
