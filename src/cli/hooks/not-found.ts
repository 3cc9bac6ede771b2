// Names the closest command when a mistyped one is not found and nobody can be asked. At a terminal
// @oclif/plugin-not-found asks "Did you mean …?" itself; in a pipe or CI (where src/cli/main.ts leaves that
// plugin out) this hook answers: a usage error (exit 2) naming the closest command or topic, spelled as it is
// typed (spaces, never colons).
import type {Hook} from '@oclif/core';
import {renderError} from '../../lib/render-error.js';
import {currentSvcCommand} from '../../lib/invocation.js';
import {ExitCode} from '../../lib/exit-codes.js';

/** Edit distance (insertions, deletions, substitutions), small inputs only. */
export function editDistance(a: string, b: string): number {
  let previous = Array.from({length: b.length + 1}, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      current[j] = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + cost);
    }
    previous = current;
  }
  return previous[b.length]!;
}

/** The visible command id closest to `id`, or undefined when none is close enough to be a typo. */
export function closestCommand(id: string, ids: readonly string[]): string | undefined {
  let best: {id: string; distance: number} | undefined;
  for (const candidate of ids) {
    const distance = editDistance(id, candidate);
    if (!best || distance < best.distance) best = {id: candidate, distance};
  }
  // More than half the typed id changed is a different command, not a typo of this one.
  if (!best || best.distance > Math.max(2, Math.ceil(id.length / 2))) return undefined;
  return best.id;
}

const hook: Hook<'command_not_found'> = async (options) => {
  // At a terminal the not-found plugin asks "Did you mean …?" and runs the answer.
  if (process.stdin.isTTY) return;
  const config = options.config;
  const separator = config.topicSeparator ?? ' ';
  const hidden = new Set(config.commands.filter((c) => c.hidden).map((c) => c.id));
  // Topics too: `svc webhook` is most likely `svc webhooks`.
  const ids = [...config.commandIDs.filter((id) => !hidden.has(id)), ...config.topics.map((t) => t.name)];
  const suggestion = closestCommand(options.id, ids);
  const typed = options.id.split(':').join(separator);
  const svc = currentSvcCommand();
  const suggestions = [
    ...(suggestion ? [`Did you mean \`${svc} ${suggestion.split(':').join(separator)}\`?`] : []),
    `Run \`${svc} help\` for the list of commands`,
  ];
  const message = `command ${typed} not found`;
  process.stderr.write(renderError(message, suggestions));
  // Printed above, unwrapped; oclif's handler reads the exit code and prints nothing more.
  throw Object.assign(new Error(message), {oclif: {exit: ExitCode.usage}, skipOclifErrorHandling: true});
};

export default hook;
