// The emulator's state as files: load a seed or snapshot (merge or replace), export a snapshot, reset.
// Admin token only, like every control route; request bodies here may be as large as a state file.
import type {EmulatorApp, EmulatorContext} from '../context.js';
import {HttpError, invalidRequest} from '../http-error.js';
import {bodyText, limitBody} from '../net/body-text.js';
import {MAX_STATE_FILE_BYTES} from '../state/file.js';
import {loadState} from '../state/load.js';
import {resetState} from '../state/reset.js';
import {exportSnapshot} from '../state/snapshot.js';

export const STATE_IMPORT_PATH = '/_emulator/state/import';

export function registerStateRoutes(app: EmulatorApp, ctx: EmulatorContext): void {
  app.post(
    STATE_IMPORT_PATH,
    limitBody(MAX_STATE_FILE_BYTES, () => {
      throw new HttpError(
        413,
        'payload_too_large',
        `state files are limited to ${MAX_STATE_FILE_BYTES} bytes`,
      );
    }),
    async (c) => {
      let body: unknown;
      try {
        body = JSON.parse(await bodyText(c));
      } catch {
        throw invalidRequest(
          'the body must be {"source": "<file name>", "document": {…}, "mode": "merge"|"replace"}',
        );
      }
      const {source, document, mode} = (body ?? {}) as Record<string, unknown>;
      if (typeof source !== 'string' || source === '' || source.length > 4096) {
        throw invalidRequest('source must name the file (at most 4096 characters)');
      }
      if (mode !== 'merge' && mode !== 'replace') throw invalidRequest('mode must be merge or replace');
      return c.json(await loadState(ctx, {source, document, mode}));
    },
  );

  app.post('/_emulator/state/reset', async (c) => c.json(await resetState(ctx)));
  // Not cached by anything in between: it holds signing secrets.
  app.get('/_emulator/state/export', async (c) =>
    c.json(await exportSnapshot(ctx), 200, {'Cache-Control': 'no-store'}),
  );
}
