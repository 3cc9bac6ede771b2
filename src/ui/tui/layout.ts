// The endpoints screen's columns as plain strings: the Ink screen (screens.tsx) and the frame painted before Ink
// has loaded (screen.ts) lay rows out by the same rules, so the first data a person sees does not move.
import type {WebhookEndpoint} from '../../schemas/index.js';
import {sanitize} from '../text.js';

/** Wide enough for a description column beside the URL and events (a wide terminal has the room for it). */
const ENDPOINT_DESCRIPTION_FROM = 120;

function endpointWidths(width: number) {
  if (width >= ENDPOINT_DESCRIPTION_FROM) {
    const rest = width - 2 - 27 - 6;
    const url = Math.floor(rest * 0.4);
    const events = Math.floor(rest * 0.3);
    return {id: 27, url, events, description: rest - url - events};
  }
  const rest = Math.max(width - 2 - 27 - 4, 10);
  const url = Math.max(Math.floor(rest * 0.6), 8);
  return {id: 27, url, events: Math.max(rest - url, 4), description: 0};
}

/** Text padded or cut (with …) to exactly `width` characters. */
export function cell(text: string, width: number): string {
  const chars = Array.from(text);
  if (chars.length <= width) return text.padEnd(width);
  return `${chars.slice(0, Math.max(width - 1, 0)).join('')}…`;
}

/** The column line of the endpoints screen. */
export function endpointColumnsText(width: number): string {
  const w = endpointWidths(width);
  return `  ${cell('ID', w.id)}  ${cell('URL', w.url)}  ${cell('EVENTS', w.events)}${w.description ? `  ${cell('DESCRIPTION', w.description)}` : ''}`;
}

/** One endpoint's cells, each fitted to its column; `description` is empty where the screen has no room for it. */
export function endpointCells(
  e: WebhookEndpoint,
  width: number,
): {id: string; url: string; events: string; description: string} {
  const w = endpointWidths(width);
  const events = e.events.map((t) => t.replace(/^sandbox\./, '')).join(',');
  return {
    id: cell(e.id, w.id),
    url: cell(sanitize(e.url), w.url),
    events: cell(events, w.events),
    description: w.description ? `  ${cell(sanitize(e.description ?? '-'), w.description)}` : '',
  };
}
