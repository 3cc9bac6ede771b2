import {PassThrough} from 'node:stream';
import {describe, expect, it} from 'vitest';
import {newApiKeySecret} from '../../src/emulator/ids.js';
import {readSecret} from '../../src/ui/secret-input.js';

/** A stand-in terminal: a stream with isTTY and setRawMode, recording the raw-mode switches. */
function fakeTerminal() {
  const input = Object.assign(new PassThrough(), {isTTY: true, modes: [] as boolean[]}) as PassThrough & {
    isTTY: boolean;
    modes: boolean[];
    setRawMode: (mode: boolean) => void;
  };
  input.setRawMode = (mode: boolean) => {
    input.modes.push(mode);
  };
  const output = new PassThrough();
  let written = '';
  output.on('data', (d) => {
    written += d;
  });
  return {input, output, written: () => written};
}

describe('readSecret at a terminal', () => {
  it('prompts, reads without echo, and restores the terminal', async () => {
    const key = newApiKeySecret();
    const t = fakeTerminal();
    const result = readSecret(t.input, t.output, 'Key: ');
    t.input.write(`${key}x\u007f\r`);
    expect(await result).toBe(key);
    expect(t.written()).toBe('Key: \n');
    expect(t.input.modes).toEqual([true, false]);
  });

  it('treats Ctrl-C as cancelling', async () => {
    const t = fakeTerminal();
    const result = readSecret(t.input, t.output, 'Key: ');
    t.input.write('svc_abc\u0003');
    await expect(result).rejects.toMatchObject({code: 'cancelled'});
    expect(t.input.modes).toEqual([true, false]);
  });
});

describe('readSecret from a pipe', () => {
  it('reads the whole input', async () => {
    const key = newApiKeySecret();
    const pipe = new PassThrough();
    pipe.end(`${key}\n`);
    expect(await readSecret(pipe, new PassThrough(), 'unused')).toBe(`${key}\n`);
  });

  it('refuses input far longer than a key', async () => {
    const pipe = new PassThrough();
    pipe.end('x'.repeat(100_000));
    await expect(readSecret(pipe, new PassThrough(), 'unused')).rejects.toThrow(/far longer than an API key/);
  });
});
