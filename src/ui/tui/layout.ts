// The endpoints screen's columns as plain strings: the Ink screen (screens.tsx) and the frame painted before Ink
// has loaded (screen.ts) lay rows out by the same rules, so the first data a person sees does not move.
import type {EndpointHealth} from '../../schemas/emulator.js';
import type {WebhookEndpoint} from '../../schemas/index.js';
import {lastCodeText} from '../delivery-detail.js';
import {sanitize} from '../text.js';

/** Wide enough for a description column beside the URL and events (a wide terminal has the room for it). */
const ENDPOINT_DESCRIPTION_FROM = 120;
/**
 * Wide enough for a health column too: how the endpoint's recent deliveries went. Only where the source can tell
 * it for every endpoint in one call (an emulator); asking each endpoint's deliveries on every refresh would not do.
 */
export const ENDPOINT_HEALTH_FROM = 140;
// "retrying 503 · 100/100 failed", the longest it says.
const HEALTH_WIDTH = 29;

/** An endpoint as the endpoints screen lists it; `health` once the source told it (null: it could not). */
export type ListedEndpoint = WebhookEndpoint & {health?: EndpointHealth | null};

/** Whether the endpoints screen at this width shows the health column, for a source that can tell it. */
export function showsHealth(width: number, sourceTellsHealth: boolean): boolean {
  return sourceTellsHealth && width >= ENDPOINT_HEALTH_FROM;
}

function endpointWidths(width: number, health: boolean) {
  if (width >= ENDPOINT_DESCRIPTION_FROM) {
    const healthWidth = health && width >= ENDPOINT_HEALTH_FROM ? HEALTH_WIDTH : 0;
    const rest = width - 2 - 27 - 6 - (healthWidth ? healthWidth + 2 : 0);
    const url = Math.floor(rest * 0.4);
    const events = Math.floor(rest * 0.3);
    return {id: 27, url, events, description: rest - url - events, health: healthWidth};
  }
  const rest = Math.max(width - 2 - 27 - 4, 10);
  const url = Math.max(Math.floor(rest * 0.6), 8);
  return {id: 27, url, events: Math.max(rest - url, 4), description: 0, health: 0};
}

/** Text padded or cut (with …) to exactly `width` characters. */
export function cell(text: string, width: number): string {
  const chars = Array.from(text);
  if (chars.length <= width) return text.padEnd(width);
  return `${chars.slice(0, Math.max(width - 1, 0)).join('')}…`;
}

/** The column line of the endpoints screen; `health`: the source can tell each endpoint's health. */
export function endpointColumnsText(width: number, health = false): string {
  const w = endpointWidths(width, health);
  return `  ${cell('ID', w.id)}  ${cell('URL', w.url)}  ${cell('EVENTS', w.events)}${w.health ? `  ${cell('HEALTH', w.health)}` : ''}${w.description ? `  ${cell('DESCRIPTION', w.description)}` : ''}`;
}

export type HealthState = 'ok' | 'failing' | 'retrying' | 'sending' | 'quiet' | 'unknown';

/**
 * An endpoint's health in a few words, for a person checking that webhooks arrive: where its newest delivery
 * stands (with the last answer when it did not succeed), then how many of its recent deliveries failed.
 * `undefined`: not told yet; null: the source could not tell.
 */
export function healthText(health: EndpointHealth | null | undefined): {state: HealthState; text: string} {
  if (health === undefined) return {state: 'unknown', text: '…'};
  if (health === null) return {state: 'unknown', text: '?'};
  const last = health.last;
  if (!last || health.recent === 0) return {state: 'quiet', text: 'no deliveries'};
  const failedShare = `${health.failed}/${health.recent} failed`;
  if (last.status === 'succeeded') return {state: 'ok', text: `ok · ${failedShare}`};
  if (last.status === 'failed')
    return {state: 'failing', text: `failing ${lastCodeText(last)} · ${failedShare}`};
  if (last.attempts > 0) return {state: 'retrying', text: `retrying ${lastCodeText(last)} · ${failedShare}`};
  return {state: 'sending', text: `sending · ${failedShare}`};
}

/**
 * One endpoint's cells, each fitted to its column; `description` and `health` are empty where the screen has no
 * room for them (each then starts with its two spaces of gap).
 */
export function endpointCells(
  e: ListedEndpoint,
  width: number,
  health = false,
): {id: string; url: string; events: string; health: string; healthState: HealthState; description: string} {
  const w = endpointWidths(width, health);
  const events = e.events.map((t) => t.replace(/^sandbox\./, '')).join(',');
  const told = healthText(e.health);
  return {
    id: cell(e.id, w.id),
    url: cell(sanitize(e.url), w.url),
    events: cell(events, w.events),
    health: w.health ? `  ${cell(told.text, w.health)}` : '',
    healthState: told.state,
    description: w.description ? `  ${cell(sanitize(e.description ?? '-'), w.description)}` : '',
  };
}
