// The emulator's address itself, as a newcomer meets it: the first address the ready message prints, opened in a
// browser or asked by curl, points at the account page; every page's icon is there.
import {afterAll, beforeAll, describe, expect, it} from 'vitest';
import {type RunningEmulator, startEmulator} from '../../../src/emulator/index.js';
import {localhostFetch} from '../../helpers/localhost-fetch.js';

let emu: RunningEmulator;
beforeAll(async () => {
  emu = await startEmulator({port: 0, inMemory: true});
});
afterAll(() => emu?.stop());

describe('GET / on the API address', () => {
  it('sends a browser to the account page', async () => {
    const res = await fetch(`${emu.apiUrl}/`, {redirect: 'manual', headers: {accept: 'text/html,*/*;q=0.8'}});
    expect(res.status).toBe(302);
    expect(res.headers.get('location')).toBe('/account');
    // ...which lives at its own name.
    const followed = await localhostFetch(`${emu.apiUrl}/`, {headers: {accept: 'text/html'}});
    expect(followed.url).toBe(emu.accountUrl);
    expect(followed.status).toBe(200);
  });

  it('tells anything else where the API and the account page are, in the error shape', async () => {
    const res = await fetch(`${emu.apiUrl}/`);
    expect(res.status).toBe(404);
    expect(await res.json()).toEqual({
      error: {
        code: 'not_found',
        message:
          'this is the svc API: its routes are under /v1 (with an API key), and the account page is at /account',
      },
    });
  });
});

describe('/favicon.ico', () => {
  it('is an icon of its own, which the pages name', async () => {
    const res = await fetch(`${emu.apiUrl}/favicon.ico`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('image/svg+xml');
    expect(await res.text()).toMatch(/^<svg /);
    const page = await (await localhostFetch(emu.accountUrl)).text();
    expect(page).toContain('<link rel="icon" href="/favicon.ico" type="image/svg+xml"/>');
  });
});
