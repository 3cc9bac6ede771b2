// `svc webhooks verify` as a user runs it (the built CLI, in-process): the body from a file or stdin, the secret
// from the environment. The signatures are made with the library, the verdicts come from the CLI.
import {mkdtempSync, rmSync, writeFileSync} from 'node:fs';
import {tmpdir} from 'node:os';
import {join} from 'node:path';
import {afterAll, describe, expect, it} from 'vitest';
import {signPayload} from '../../src/webhooks/index.js';
import {runCommand} from '../helpers/run-cli.js';

const SECRET = 'whsec_ZTJlLXZlcmlmeS1zZWNyZXQtMDEyMzQ1Njc4OWFiY2RlZg==';
const EVENT = {
  id: 'evt_8Kq2Wm4Rt6Yu8Io0Pa2Sd4Fg',
  type: 'sandbox.error',
  created_at: '2026-01-01T00:00:00.000Z',
  org_id: 'org_3Hj5Kl7Zx9Cv1Bn3Mq5We7Rt',
  data: {
    sandbox: {id: 'sbx_2Ty4Ui6Op8As0Df2Gh4Jk6Lz', name: 'worker', status: 'error', desired_state: 'running'},
  },
};
const BODY = JSON.stringify(EVENT);
const nowSeconds = () => Math.floor(Date.now() / 1000);
const sign = (payload: string | Uint8Array, timestamp = nowSeconds(), secret = SECRET) =>
  signPayload({secret, payload, timestamp});

const dir = mkdtempSync(join(tmpdir(), 'svc-verify-'));
afterAll(() => rmSync(dir, {recursive: true, force: true}));
function file(name: string, content: string | Uint8Array): string {
  const path = join(dir, name);
  writeFileSync(path, content);
  return path;
}
const env = {SVC_WEBHOOK_SECRET: SECRET};

function expectNoSecret(r: {stdout: string; stderr: string}, secret = SECRET) {
  expect(r.stdout).not.toContain(secret);
  expect(r.stderr).not.toContain(secret);
}

describe('svc webhooks verify', () => {
  it('accepts a valid delivery from a file, printing the event type and id', async () => {
    const r = await runCommand(
      ['webhooks', 'verify', '--header', sign(BODY), '--payload-file', file('ok.json', BODY)],
      {
        env,
      },
    );
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/Valid signature/);
    expect(r.stdout).toContain(`sandbox.error ${EVENT.id}`);
    expectNoSecret(r);
  });

  it('reads the body from stdin and answers {"valid": true, …} with --json', async () => {
    const r = await runCommand(['webhooks', 'verify', '--header', sign(BODY), '--json'], {env, input: BODY});
    expect(r.code).toBe(0);
    const out = JSON.parse(r.stdout);
    expect(out).toMatchObject({valid: true, event_id: EVENT.id, event_type: 'sandbox.error', event: EVENT});
    expect(Math.abs(out.age_seconds)).toBeLessThan(60);
  });

  it('verifies the raw bytes: a trailing CRLF that was signed passes, one that was not fails', async () => {
    const withCrlf = `${BODY}\r\n`;
    const signed = await runCommand(['webhooks', 'verify', '--header', sign(withCrlf)], {
      env,
      input: withCrlf,
    });
    expect(signed.code).toBe(0);
    const unsigned = await runCommand(['webhooks', 'verify', '--header', sign(BODY), '--json'], {
      env,
      input: withCrlf,
    });
    expect(unsigned.code).toBe(1);
    expect(JSON.parse(unsigned.stdout).error.code).toBe('signature_mismatch');
  });

  it('hashes a binary file byte for byte, then reports that it is not an event', async () => {
    const bytes = Uint8Array.from([0xff, 0x00, 0xc3, 0x28, 0x7b]);
    const r = await runCommand(
      ['webhooks', 'verify', '--header', sign(bytes), '--payload-file', file('bin', bytes), '--json'],
      {env},
    );
    expect(r.code).toBe(1);
    expect(JSON.parse(r.stdout).error.code).toBe('invalid_payload');
  });

  it('rejects a wrong secret with exit 1, the reason as the code, and never prints the secret', async () => {
    const other = 'whsec_b3RoZXItc2VjcmV0LW5vdC10aGUtb25lLXVzZWQtdG8tc2lnbg==';
    const r = await runCommand(['webhooks', 'verify', '--header', sign(BODY), '--json'], {
      env: {SVC_WEBHOOK_SECRET: other},
      input: BODY,
    });
    expect(r.code).toBe(1);
    const {error} = JSON.parse(r.stdout);
    expect(error.code).toBe('signature_mismatch');
    expect(error.message).toMatch(/signature_mismatch/);
    expectNoSecret(r, other);
    expectNoSecret(r);
  });

  it('explains an API key given as the secret, in human output with the reason', async () => {
    const apiKey = 'svc_Q1w2E3r4T5y6U7i8O9p0A1s2D3f4G5h6J7k8L9z0';
    const r = await runCommand(['webhooks', 'verify', '--header', sign(BODY)], {
      env: {SVC_WEBHOOK_SECRET: apiKey},
      input: BODY,
    });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/signature_mismatch/);
    expect(r.stderr.replace(/\s*›\s*/g, ' ')).toMatch(/API key, not a signing secret/);
    expectNoSecret(r, apiKey);
  });

  it('reports clock skew with the number of seconds, and --tolerance widens the window', async () => {
    const header = sign(BODY, nowSeconds() - 1000);
    const strict = await runCommand(['webhooks', 'verify', '--header', header, '--json'], {env, input: BODY});
    expect(strict.code).toBe(1);
    const {error} = JSON.parse(strict.stdout);
    expect(error.code).toBe('timestamp_outside_tolerance');
    expect(error.message).toMatch(/\d{4} seconds in the past/);
    const lenient = await runCommand(['webhooks', 'verify', '--header', header, '--tolerance', '3600'], {
      env,
      input: BODY,
    });
    expect(lenient.code).toBe(0);
  });

  it('answers a malformed header with its reason', async () => {
    const r = await runCommand(['webhooks', 'verify', '--header', 'nonsense', '--json'], {env, input: BODY});
    expect(r.code).toBe(1);
    expect(JSON.parse(r.stdout).error.code).toBe('malformed_header');
  });

  it('accepts the whole header line as copied from a log', async () => {
    const r = await runCommand(['webhooks', 'verify', '--header', `Svc-Signature: ${sign(BODY)}`], {
      env,
      input: BODY,
    });
    expect(r.code).toBe(0);
  });

  it('takes --secret over the environment, with a hint to use the environment instead', async () => {
    const r = await runCommand(['webhooks', 'verify', '--secret', SECRET, '--header', sign(BODY)], {
      env: {SVC_WEBHOOK_SECRET: 'whsec_stale'},
      input: BODY,
    });
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(/SVC_WEBHOOK_SECRET/);
    expectNoSecret(r);
  });

  it('without any secret, is a usage error (exit 2) naming SVC_WEBHOOK_SECRET', async () => {
    const r = await runCommand(['webhooks', 'verify', '--header', sign(BODY), '--json'], {input: BODY});
    expect(r.code).toBe(2);
    const {error} = JSON.parse(r.stdout);
    expect(error.code).toBe('usage');
    expect(error.message).toMatch(/SVC_WEBHOOK_SECRET/);
  });

  it('says so clearly when the payload file cannot be read', async () => {
    const r = await runCommand(
      ['webhooks', 'verify', '--header', sign(BODY), '--payload-file', join(dir, 'missing.json'), '--json'],
      {env},
    );
    expect(r.code).toBe(1);
    const {error} = JSON.parse(r.stdout);
    expect(error.code).toBe('payload_unreadable');
    expect(error.message).toMatch(/ENOENT/);
  });
});
