// Text that echoes user input (a URL, an id) into an error could echo a key pasted in the wrong place.
const KEY_LIKE = /svc_[0-9A-Za-z]{8,}/g;

/** Replaces anything shaped like an svc API key with its first 8 characters and an ellipsis. */
export function redactKeys(text: string): string {
  return text.replace(KEY_LIKE, (match) => `${match.slice(0, 8)}…`);
}
