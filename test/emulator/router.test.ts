// Every request passes the main router first: its routes must compile into Hono's one-expression router, or
// each /v1 request pays for the slower trie it falls back to (a new route shape can cause that silently).
import {afterAll, beforeAll, expect, it} from 'vitest';
import {createApp, type RunningEmulator, startEmulator} from '../../src/emulator/index.js';

let emu: RunningEmulator;
beforeAll(async () => {
  emu = await startEmulator({port: 0, inMemory: true});
});
afterAll(() => emu?.stop());

it('keeps every route of the emulator in the fast router', async () => {
  const app = createApp(emu.context);
  expect((await app.request('/v1/org')).status).toBe(401);
  const router = app.router as unknown as {activeRouter?: {name: string}};
  expect(router.activeRouter?.name).toBe('RegExpRouter');
  // The account pages still answer through their own app (at their own name: at localhost they send browsers there).
  expect((await app.request('http://svc-80.localhost/account')).status).toBe(200);
});
