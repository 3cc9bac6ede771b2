// Data that refreshes itself: soon after a change, less often while nothing moves, with back-off on errors,
// keeping the last good data (marked stale) while refreshes fail.
import {useCallback, useEffect, useRef, useState} from 'react';
import {describeTrouble, type Trouble} from './trouble.js';
import {type Backoff, LIVE_BACKOFF, nextDelay} from './model.js';

export interface Live<T> {
  data?: T;
  /** Why the latest refresh failed; the data, if any, is then stale. */
  trouble?: Trouble;
  /** When the data was last fetched successfully (ms). */
  refreshedAt?: number;
  /** When the next refresh is planned after a failure (ms). */
  retryAt?: number;
}

/**
 * `key` names what is fetched; a new key starts over, from what `cache` last held for it (going back to a
 * screen shows its data at once, and refreshes it).
 */
export function useLive<T>(
  key: string,
  fetcher: () => Promise<T>,
  cache: Map<string, Live<unknown>>,
  backoff: Backoff = LIVE_BACKOFF,
): [Live<T>, () => void] {
  const [state, setState] = useState<{key: string; live: Live<T>}>(() => ({
    key,
    live: (cache.get(key) as Live<T>) ?? {},
  }));
  const live = state.key === key ? state.live : ((cache.get(key) as Live<T>) ?? {});
  // The fetcher of the latest render, with the key it fetches: a refresh timer of the screen just left can fire
  // after the render of the next screen and before its effect is cleaned up, and must not read the next screen's
  // data into its own key.
  const fetcherRef = useRef({key, fetcher});
  fetcherRef.current = {key, fetcher};
  const kickRef = useRef<() => void>(() => undefined);

  useEffect(() => {
    let stopped = false;
    let timer: NodeJS.Timeout | undefined;
    let delay = backoff.minMs;
    let last: string | undefined = JSON.stringify(cache.get(key)?.data);
    let running = false;
    let again = false;
    const setLive = (update: (prev: Live<T>) => Live<T>) =>
      setState((prev) => {
        const current = prev.key === key ? prev.live : ((cache.get(key) as Live<T>) ?? {});
        const next = update(current);
        if (next === current && prev.key === key) return prev;
        cache.set(key, next);
        return {key, live: next};
      });

    const run = async () => {
      if (running) {
        again = true;
        return;
      }
      const current = fetcherRef.current;
      if (current.key !== key) return;
      running = true;
      clearTimeout(timer);
      try {
        const data = await current.fetcher();
        if (stopped) return;
        const text = JSON.stringify(data);
        delay = nextDelay(delay, text === last ? 'same' : 'changed', backoff);
        const changed = text !== last;
        last = text;
        setLive((prev) => ({
          data: changed || prev.data === undefined ? data : prev.data,
          refreshedAt: Date.now(),
        }));
      } catch (err) {
        if (stopped) return;
        delay = nextDelay(delay, 'failed', backoff);
        const trouble = describeTrouble(err);
        setLive((prev) => ({...prev, trouble, retryAt: Date.now() + delay}));
      } finally {
        running = false;
      }
      if (stopped) return;
      if (again) {
        again = false;
        void run();
      } else timer = setTimeout(run, delay);
    };
    kickRef.current = () => {
      delay = backoff.minMs;
      void run();
    };
    void run();
    return () => {
      stopped = true;
      clearTimeout(timer);
    };
  }, [key, backoff, cache]);

  const refresh = useCallback(() => kickRef.current(), []);
  return [live, refresh];
}
