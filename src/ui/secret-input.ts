// Reading a secret: a hidden prompt for a person at a terminal, the whole of standard input otherwise.
import {UserError} from '../lib/errors.js';
import {ExitCode} from '../lib/exit-codes.js';

export interface SecretInput extends NodeJS.ReadableStream {
  isTTY?: boolean;
  setRawMode?: (mode: boolean) => unknown;
}

/** Far above any key; stops `svc login < big-file` from reading gigabytes. */
const MAX_INPUT_BYTES = 8192;

export async function readSecret(
  input: SecretInput,
  output: NodeJS.WritableStream,
  prompt: string,
): Promise<string> {
  if (input.isTTY && typeof input.setRawMode === 'function') return promptHidden(input, output, prompt);
  return readAll(input);
}

export async function readAll(input: NodeJS.ReadableStream): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of input) {
    const buf = typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Buffer);
    size += buf.length;
    if (size > MAX_INPUT_BYTES) {
      throw new UserError('standard input is far longer than an API key; pipe in only the key', {
        code: 'usage',
        exitCode: ExitCode.usage,
      });
    }
    chunks.push(buf);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** Raw mode without echo: not even asterisks, so the key's length is not shown either. */
function promptHidden(input: SecretInput, output: NodeJS.WritableStream, prompt: string): Promise<string> {
  output.write(prompt);
  input.setRawMode!(true);
  input.resume();
  return new Promise((resolve, reject) => {
    let value = '';
    const finish = (error?: Error) => {
      input.removeListener('data', onData);
      input.setRawMode!(false);
      input.pause();
      output.write('\n');
      if (error) reject(error);
      else resolve(value);
    };
    const onData = (data: Buffer | string) => {
      for (const ch of data.toString()) {
        if (ch === '\r' || ch === '\n' || ch === '\u0004') return finish();
        if (ch === '\u0003')
          return finish(new UserError('cancelled', {code: 'cancelled', exitCode: ExitCode.usage}));
        if (ch === '\u007f' || ch === '\b') value = Array.from(value).slice(0, -1).join('');
        else if (ch >= ' ') value += ch;
      }
    };
    input.on('data', onData);
  });
}
