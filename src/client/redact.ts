// Text that echoes user input (a URL, an id) into an error could echo a key pasted in the wrong place.
import {API_KEY_PREFIX_LENGTH, API_KEY_SECRET_PREFIX} from '../definitions.js';

// Eight characters after the prefix are enough to be a key's start; shorter runs are left alone.
const KEY_LIKE = new RegExp(`${API_KEY_SECRET_PREFIX}[0-9A-Za-z]{8,}`, 'g');

/** Replaces anything shaped like an svc API key with its first characters (the listed prefix) and an ellipsis. */
export function redactKeys(text: string): string {
  return text.replace(KEY_LIKE, (match) => `${match.slice(0, API_KEY_PREFIX_LENGTH)}…`);
}
