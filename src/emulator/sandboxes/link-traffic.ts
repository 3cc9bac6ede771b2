// What flows through port sessions right now: every forwarded exchange (from the request until its answer has
// ended) and every upgraded connection, each held under its link. Whenever something that decides whether a link
// works may have changed (a write to keys, sandboxes or links by this process or another sharing the PostgreSQL,
// a move of the clock, the expiry of a key or sandbox coming due), the links with open traffic are read again,
// and the traffic of each that no longer works is cut at once: revoking a key stops what it opened, not only the
// next request.
import type {Clock} from '../clock.js';
import {type LinkRefusal, type LinkView, linkState} from '../db/sandbox-links.js';
import {LINK_STATE_TABLES} from '../db/tables.js';
import {realTimers, type Timers} from '../delivery/timers.js';

/** Why open traffic was cut: the link stopped working, it is gone (a reset), or the emulator is stopping. */
export type CutReason = LinkRefusal | 'link_gone' | 'unchecked' | 'stopping';

/** Longest real-time wait a timer takes (setTimeout's limit); a later expiry is waited for in steps. */
const MAX_WAIT_MS = 2 ** 31 - 1;

export interface LinkTrafficOptions {
  /** The links with these ids as they are now; a link missing from the answer is gone. */
  read(ids: string[]): Promise<LinkView[]>;
  clock: Clock;
  log(line: string): void;
  /** How long an exchange waits for the app to start answering. */
  answerTimeoutMs: number;
  /** The real-time waits until an expiry comes due (default: the real ones). */
  timers?: Timers;
}

interface Open {
  cut(why: CutReason): void;
}

export class LinkTraffic {
  readonly answerTimeoutMs: number;
  /** Real-time waits: an expiry coming due, an app's first answer. */
  readonly timers: Timers;
  readonly #o: LinkTrafficOptions;
  readonly #open = new Map<string, Set<Open>>();
  /** When each link with open traffic stops working by the clock alone (its key's or sandbox's expiry). */
  readonly #due = new Map<string, number>();
  #changes = 0;
  #checking: Promise<void> | undefined;
  #again = false;
  /** Cancels the wait for the next expiry, when one is set. */
  #cancelWait: (() => void) | undefined;

  constructor(options: LinkTrafficOptions) {
    this.#o = options;
    this.answerTimeoutMs = options.answerTimeoutMs;
    this.timers = options.timers ?? realTimers;
  }

  /** Counts the changes heard of: a request reads it before it checks its link, and hands it to `open`. */
  get changes(): number {
    return this.#changes;
  }

  /**
   * Holds an exchange or connection under its link until the returned release is called; `cut` ends it at once.
   * `seen` is `changes` as it was before the link was checked: a change heard of since is checked for again.
   */
  open(link: LinkView, seen: number, cut: (why: CutReason) => void): () => void {
    const entry: Open = {cut};
    let set = this.#open.get(link.id);
    if (!set) {
      set = new Set();
      this.#open.set(link.id, set);
    }
    set.add(entry);
    this.#setDue(link);
    if (seen !== this.#changes) this.changed();
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.#forget(link.id, entry);
    };
  }

  /** Something that decides whether links work may have changed: the links with open traffic are read again. */
  changed(): void {
    this.#changes++;
    if (this.#open.size === 0) return;
    if (this.#checking) {
      this.#again = true;
      return;
    }
    this.#checking = this.#check().finally(() => {
      this.#checking = undefined;
    });
  }

  /** Cuts all open traffic (the emulator is stopping). */
  closeAll(): void {
    this.#cancelWait?.();
    this.#cancelWait = undefined;
    for (const id of [...this.#open.keys()]) this.#cut(id, 'stopping');
  }

  async #check(): Promise<void> {
    do {
      this.#again = false;
      const ids = [...this.#open.keys()];
      if (ids.length === 0) break;
      let links: LinkView[];
      try {
        links = await this.#o.read(ids);
      } catch (err) {
        // A link that cannot be confirmed to work is treated as one that does not.
        this.#o.log(`could not re-check open port sessions, so they are cut: ${(err as Error).message}`);
        for (const id of ids) this.#cut(id, 'unchecked');
        continue;
      }
      const now = this.#o.clock.now();
      const byId = new Map(links.map((l) => [l.id, l]));
      for (const id of ids) {
        const link = byId.get(id);
        const why = link ? linkState(link, now).refusal : 'link_gone';
        if (why) this.#cut(id, why);
        else if (link) this.#setDue(link);
      }
    } while (this.#again);
    this.#schedule();
  }

  #cut(id: string, why: CutReason): void {
    const set = this.#open.get(id);
    this.#open.delete(id);
    this.#due.delete(id);
    for (const entry of set ?? []) {
      try {
        entry.cut(why);
      } catch (err) {
        this.#o.log(`could not cut traffic of a port session: ${(err as Error).message}`);
      }
    }
  }

  #forget(id: string, entry: Open): void {
    const set = this.#open.get(id);
    if (!set?.delete(entry) || set.size > 0) return;
    this.#open.delete(id);
    this.#due.delete(id);
  }

  #setDue(link: LinkView): void {
    const times = [link.key.expiresAt, link.sandbox.expiresAt].filter((d): d is Date => d !== null);
    if (times.length === 0) this.#due.delete(link.id);
    else this.#due.set(link.id, Math.min(...times.map((d) => d.getTime())));
    this.#schedule();
  }

  /** On a real clock, a check when the first expiry comes due (a manual clock tells of its moves instead). */
  #schedule(): void {
    this.#cancelWait?.();
    this.#cancelWait = undefined;
    if (this.#o.clock.mode !== 'real' || this.#due.size === 0) return;
    const wait = Math.min(...this.#due.values()) - this.#o.clock.nowMs();
    // Stopped by closeAll when the emulator stops.
    this.#cancelWait = this.timers.setTimeout(() => this.changed(), Math.max(0, Math.min(wait, MAX_WAIT_MS)));
  }
}

export interface LinkStateSources {
  /** This process's committed writes. */
  db: {onCommit(listener: (table: string) => void): () => void};
  /** Other processes' writes on a shared PostgreSQL (the notification that also clears their caches). */
  signals?: {
    on(channel: 'svc_change', listener: (table: string) => void): () => void;
    onReconnect(listener: () => void): () => void;
  };
  clock: Clock;
}

/** Tells `traffic` of every change that may stop a link; returns what stops listening. */
export function watchLinkState(traffic: LinkTraffic, sources: LinkStateSources): () => void {
  const onTable = (table: string) => {
    if ((LINK_STATE_TABLES as readonly string[]).includes(table)) traffic.changed();
  };
  const changed = () => traffic.changed();
  const stops = [
    sources.db.onCommit(onTable),
    sources.clock.onChange(changed),
    ...(sources.signals
      ? [sources.signals.on('svc_change', onTable), sources.signals.onReconnect(changed)]
      : []),
  ];
  return () => {
    for (const stop of stops) stop();
  };
}
