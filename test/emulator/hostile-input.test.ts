// The probe's hostile inputs to the emulator's surfaces: each answered with the right status and svc's own
// sentence (a 404 for an org that is gone, as every route answers one), never a limit that does not apply.
import {afterAll, beforeAll, describe, expect, it} from 'vitest';
import {type RunningEmulator, startEmulator} from '../../src/emulator/index.js';
import {OperationError} from '../../src/emulator/operation-error.js';
import {createEndpoint} from '../../src/emulator/ops/endpoints.js';
import {createKey} from '../../src/emulator/ops/keys.js';
import {createOrg} from '../../src/emulator/ops/orgs.js';

let emu: RunningEmulator;
beforeAll(async () => {
  emu = await startEmulator({port: 0, inMemory: true, allowLocalEndpoints: true});
});
afterAll(() => emu?.stop());

const admin = (path: string) =>
  fetch(`${emu.apiUrl}${path}`, {headers: {authorization: `Bearer ${emu.adminToken}`}});

describe('hostile input', () => {
  it('answers key and endpoint creation for a deleted org with 404, not a limit', async () => {
    const org = await createOrg(emu.context, {name: 'going'});
    await emu.context.db.query('DELETE FROM orgs WHERE id = $1', [org.id]);
    for (const attempt of [
      createKey(emu.context, {orgId: org.id, name: 'late'}),
      createEndpoint(emu.context, {
        orgId: org.id,
        url: 'http://127.0.0.1:9/hooks',
        events: ['sandbox.ready'],
      }),
    ]) {
      const err = await attempt.catch((e: unknown) => e);
      expect(err).toBeInstanceOf(OperationError);
      expect((err as OperationError).code).toBe('not_found');
      expect((err as OperationError).message).toBe('no org with this id');
    }
  });

  it('answers webhook-health for an unknown org with 404, like every route that takes org_id', async () => {
    const unknown = `org_${'Nobody'.padEnd(24, '0')}`;
    const health = await admin(`/_emulator/webhook-health?org_id=${unknown}`);
    expect(health.status).toBe(404);
    expect(((await health.json()) as {error: {code: string}}).error.code).toBe('not_found');
    expect((await admin(`/_emulator/webhook-health?org_id=${emu.context.current.orgId}`)).status).toBe(200);
  });

  it('names NUL in a seed with its other problems, each field once, and loads nothing', async () => {
    const err = await emu.control
      .importState({
        source: 'nul-seed.json',
        mode: 'merge',
        document: {
          svc_emulator_seed: 1,
          orgs: [{name: 'nul', keys: [{name: 'a\u0000b'}], sandboxes: [{name: 'ok', status: 'nope'}]}],
        },
      })
      .catch((e: unknown) => e as {status: number; problems: {field: string}[]});
    expect(err.status).toBe(400);
    const fields = err.problems.map((p) => p.field);
    expect(fields.filter((f) => f === 'orgs[0].keys[0].name')).toHaveLength(1);
    expect(fields).toContain('orgs[0].sandboxes[0].status');
    expect((await emu.exportState()).orgs.map((o) => o.name)).not.toContain('nul');
  });

  it('answers a state body nested 200,000 deep with 400 naming the path, not a 500', async () => {
    const depth = 200_000;
    const body = `{"source":"deep.json","mode":"merge","document":{"svc_emulator_seed":1,"orgs":${'['.repeat(depth)}${']'.repeat(depth)}}}`;
    const answer = await fetch(`${emu.apiUrl}/_emulator/state/import`, {
      method: 'POST',
      headers: {authorization: `Bearer ${emu.adminToken}`, 'content-type': 'application/json'},
      body,
    });
    expect(answer.status).toBe(400);
    expect(((await answer.json()) as {error: {message: string}}).error.message).toMatch(
      /deep\.json: orgs(\[0\])+: nests deeper than \d+ levels/,
    );
  });
});
