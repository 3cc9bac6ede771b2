// One line per request of the emulator's request log, for people: time, method, path, status, duration, key,
// and for a refusal its reason.
import type {LogLine} from '../services/emulator/logs.js';

export function renderLogLine(l: LogLine): string {
  const key = l.key_id
    ? `${l.key_id} (${l.key_prefix ?? '?'}…)`
    : l.key_prefix
      ? `unknown key (${l.key_prefix}…)`
      : '-';
  const why = l.reason ? `  ${l.reason}${l.detail ? `: ${l.detail}` : ''}` : '';
  return `${l.time}  ${l.method.padEnd(6)} ${l.path}  ${l.status}  ${l.duration_ms} ms  ${key}${why}\n`;
}
