// What `svc listen` shows: a ready line with the signing secret, one line per delivery and answer, and hints.
import type {RelayDelivery, RelayRegistration} from '../schemas/emulator.js';
import {jsonText} from '../definitions.js';
import {colorEnabled, type Io, type Paint, painter} from '../lib/output.js';
import {dataDirArg} from '../lib/hints.js';
import {type ForwardResult, type ListenReport, runName} from '../services/listen.js';

export class ListenOutput implements ListenReport {
  readonly #io: Io;
  readonly #json: boolean;
  readonly #paint: Paint;
  #refusedHinted = false;

  readonly #svc: string;
  readonly #dataDir: string | undefined;

  /** `svc` is how the person runs svc and `dataDir` the --data-dir they gave, for the command it suggests. */
  constructor(options: {io: Io; json: boolean; svc?: string; dataDir?: string}) {
    this.#svc = options.svc ?? 'svc';
    this.#dataDir = options.dataDir;
    this.#io = options.io;
    this.#json = options.json;
    this.#paint = painter(!options.json && colorEnabled(options.io.stdout, options.io.env));
  }

  ready(relay: RelayRegistration, forwardUrl: URL, apiUrl: string): void {
    if (this.#json) {
      this.#line({
        type: 'ready',
        secret: relay.secret,
        endpoint_id: relay.endpoint_id,
        events: relay.events,
        forward_to: forwardUrl.href,
        api_url: apiUrl,
        new_secret: relay.created === true,
        ...(relay.took_over_from ? {took_over_from: relay.took_over_from} : {}),
      });
      return;
    }
    if (relay.took_over_from)
      this.#err(`Took the relay over from ${runName(relay.took_over_from)}, which stops.\n`);
    // A local emulator secret: showing it is the point, so a receiver can be configured with it.
    const which = relay.created
      ? 'a new relay endpoint, so a new secret: give it to your receiver'
      : 'the same as in earlier runs';
    this.#err(
      `Ready! Your webhook signing secret is ${relay.secret} (${which}; ^C to quit)\n` +
        `Forwarding ${relay.events.join(', ')} from the emulator at ${apiUrl} to ${forwardUrl.href}\n` +
        `Send one from another terminal: ${this.#svc} trigger ${relay.events[0] ?? 'sandbox.ready'}${dataDirArg(this.#dataDir)}\n`,
    );
  }

  received(d: RelayDelivery): void {
    if (this.#json) {
      this.#line({
        type: 'event',
        event_id: d.event_id,
        event_type: d.event_type,
        delivery_id: d.delivery_id,
        attempt: d.attempt,
      });
      return;
    }
    const attempt = d.attempt > 1 ? ` (attempt ${d.attempt})` : '';
    this.#io.stdout.write(`--> ${this.#paint('bold', d.event_type)} [${d.event_id}]${attempt}\n`);
  }

  answered(d: RelayDelivery, url: URL, r: ForwardResult): void {
    if (this.#json) {
      this.#line({
        type: r.status === null ? 'error' : 'response',
        event_id: d.event_id,
        delivery_id: d.delivery_id,
        attempt: d.attempt,
        status: r.status,
        error: r.error,
        duration_ms: r.durationMs,
        url: url.href,
      });
    } else {
      const style = r.status === null || r.status >= 500 ? 'red' : r.status >= 300 ? 'yellow' : 'green';
      const status = this.#paint(style, `[${r.status ?? 'ERR'}]`);
      const reason = r.error ? ` ${r.error}` : '';
      this.#io.stdout.write(`<-- ${status} POST ${url.href} (${r.durationMs} ms) [${d.event_id}]${reason}\n`);
    }
    if (r.refused && !this.#refusedHinted) {
      this.#refusedHinted = true;
      const local = url.hostname === 'localhost';
      this.#err(
        `Nothing is listening on ${url.href}: is your server running?` +
          (local
            ? ` localhost may resolve to ::1 while your server listens on 127.0.0.1; try --forward-to ${url.protocol}//127.0.0.1${url.port ? `:${url.port}` : ''}${url.pathname}`
            : '') +
          '\n',
      );
    } else if (r.status !== null) this.#refusedHinted = false;
  }

  disconnected(reason: string): void {
    if (this.#json) this.#line({type: 'disconnected', reason});
    this.#err(`Lost the emulator (${reason}); reconnecting…\n`);
  }

  reconnected(apiUrl: string): void {
    if (this.#json) this.#line({type: 'reconnected', api_url: apiUrl});
    this.#err(`Reconnected to ${apiUrl}; deliveries missed meanwhile follow.\n`);
  }

  /** --print-secret: the secret alone on stdout, --json or not, so `export SVC_WEBHOOK_SECRET=$(…)` works. */
  secret(secret: string): void {
    this.#io.stdout.write(`${secret}\n`);
  }

  /** After --print-secret: the secret printed is new, so a receiver configured earlier has the wrong one. */
  newSecretNote(): void {
    this.#err('This is a new relay endpoint, so its signing secret is new: give it to your receiver.\n');
  }

  warn(text: string): void {
    this.#err(`${text}\n`);
  }

  #line(value: object): void {
    this.#io.stdout.write(`${jsonText(value)}\n`);
  }

  #err(text: string): void {
    this.#io.stderr.write(text);
  }
}
