// `npm start` as a new user meets it: `svc emulator start --demo` prints a working key and next steps.
import {spawn} from 'node:child_process';
import {mkdtempSync, rmSync} from 'node:fs';
import {tmpdir} from 'node:os';
import {join} from 'node:path';
import {afterAll, describe, expect, it} from 'vitest';
import {API_KEY_SECRET_PATTERN} from '../../src/definitions.js';
import {localhostFetch} from '../helpers/localhost-fetch.js';
import {BIN, runCommand} from '../helpers/run-cli.js';

const dataRoot = mkdtempSync(join(tmpdir(), 'svc-demo-'));
afterAll(() => rmSync(dataRoot, {recursive: true, force: true}));

describe('svc emulator start --demo', {timeout: 60_000}, () => {
  it('prints the API address, a demo key that works, and commands runnable from where the user is', async () => {
    // A PATH without svc on it, as on a fresh clone: the hints must say `npx svc`.
    const env = {PATH: '/usr/bin:/bin', HOME: dataRoot, NO_COLOR: '1', SVC_DATA_DIR: join(dataRoot, 'data')};
    // Spawned: the start is under test (what it prints when ready), and it runs until a signal.
    const child = spawn(
      process.execPath,
      [BIN, 'emulator', 'start', '--demo', '--port', '0', '--in-memory'],
      {env},
    );
    let out = '';
    const ready = new Promise<void>((resolve, reject) => {
      const onData = (d: Buffer) => {
        out += d;
        if (out.includes('Press Ctrl+C to stop.')) resolve();
      };
      child.stdout.on('data', onData);
      child.stderr.on('data', onData);
      child.on('exit', (code) => reject(new Error(`emulator exited with ${code}: ${out}`)));
    });
    try {
      await ready;
      const apiUrl = /API: +(http:\/\/\S+)/.exec(out)?.[1];
      const key = /^ {2}(svc_\S+)$/m.exec(out)?.[1];
      expect(apiUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      expect(key).toMatch(API_KEY_SECRET_PATTERN);
      expect(out).toContain('  npx svc org');
      expect(out).toContain(`  export SVC_API_URL=${apiUrl}`);
      // It leads a new person to the account page and says how signing in works there.
      // The page has a name of its own, so its cookies reach no other local server.
      const port = new URL(apiUrl as string).port;
      const accountUrl = `http://svc-${port}.localhost:${port}/account`;
      expect(out).toContain(`open ${accountUrl} and sign in with any email address`);
      expect(out).toContain(`${accountUrl}/mailbox`);
      const page = await localhostFetch(accountUrl);
      expect(page.status).toBe(200);
      expect(await page.text()).toContain('Email me a sign-in link');
      const org = await runCommand(['org', '--json'], {env: {SVC_API_URL: apiUrl, SVC_API_KEY: key}});
      expect(org.code).toBe(0);
      expect(JSON.parse(org.stdout)).toMatchObject({id: expect.stringMatching(/^org_/), name: 'Demo org'});
    } finally {
      child.kill('SIGTERM');
      await new Promise((resolve) => child.once('close', resolve));
    }
  });

  it('prints the same demo key at every start on a data dir, and it keeps working; a revoked one is replaced', async () => {
    const dataDir = join(dataRoot, 'kept');
    const env = {PATH: '/usr/bin:/bin', HOME: dataRoot, NO_COLOR: '1', SVC_DATA_DIR: join(dataRoot, 'data')};
    const startOnce = async (): Promise<{
      key: string;
      out: string;
      apiUrl: string;
      stop(): Promise<void>;
    }> => {
      // Spawned: each start is under test (the key it prints), and it runs until a signal.
      const child = spawn(
        process.execPath,
        [BIN, 'emulator', 'start', '--demo', '--port', '0', '--data-dir', dataDir],
        {env},
      );
      let out = '';
      await new Promise<void>((resolve, reject) => {
        const onData = (d: Buffer) => {
          out += d;
          if (out.includes('Press Ctrl+C to stop.')) resolve();
        };
        child.stdout.on('data', onData);
        child.stderr.on('data', onData);
        child.on('exit', (code) => reject(new Error(`emulator exited with ${code}: ${out}`)));
      });
      return {
        key: /^ {2}(svc_\S+)$/m.exec(out)?.[1] as string,
        apiUrl: /API: +(http:\/\/\S+)/.exec(out)?.[1] as string,
        out,
        stop: async () => {
          const closed = new Promise((resolve) => child.once('close', resolve));
          child.kill('SIGTERM');
          await closed;
        },
      };
    };
    const orgWith = (apiUrl: string, key: string) =>
      runCommand(['org', '--json'], {env: {SVC_API_URL: apiUrl, SVC_API_KEY: key}});

    const first = await startOnce();
    expect(first.out).toContain(
      'Demo API key (new; every later --demo start on this data dir prints this one again):',
    );
    await first.stop();
    const second = await startOnce();
    try {
      expect(second.key).toBe(first.key);
      expect(second.out).toContain('Demo API key (the same as at earlier starts on this data dir');
      // The key kept from the first start works against the restarted emulator.
      expect((await orgWith(second.apiUrl, first.key)).code).toBe(0);
      const keys = await runCommand(['keys', 'list', '--json'], {
        env: {SVC_API_URL: second.apiUrl, SVC_API_KEY: first.key},
      });
      const listed = JSON.parse(keys.stdout) as {data: {created_by: string; status: string}[]};
      expect(listed.data.filter((k) => k.created_by === 'svc emulator --demo')).toEqual([
        expect.objectContaining({status: 'active'}),
      ]);
      const demoId = (JSON.parse(keys.stdout) as {data: {id: string; created_by: string}[]}).data.find(
        (k) => k.created_by === 'svc emulator --demo',
      )?.id as string;
      const revoked = await runCommand(['emulator', 'keys', 'revoke', demoId, '--data-dir', dataDir], {env});
      expect(revoked.code, revoked.stderr).toBe(0);
    } finally {
      await second.stop();
    }
    const third = await startOnce();
    try {
      expect(third.key).not.toBe(first.key);
      expect(third.out).toContain('Demo API key (new;');
      expect((await orgWith(third.apiUrl, third.key)).code).toBe(0);
    } finally {
      await third.stop();
    }
  });
});
