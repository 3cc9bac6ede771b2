// A flag whose value may be left out (`test-receiver --race [N]`): a bare flag gets the default, a number stays
// its value, and nothing after `--` is read.
import {describe, expect, it} from 'vitest';
import {withOptionalValue} from '../../src/lib/optional-flag-value.js';

const bare = (argv: string[]) => withOptionalValue(argv, '--race', '2');

describe('withOptionalValue', () => {
  it('gives a bare flag its default, wherever it stands', () => {
    expect(bare(['URL', '--race'])).toEqual(['URL', '--race=2']);
    expect(bare(['--race', 'http://127.0.0.1:3000/webhooks'])).toEqual([
      '--race=2',
      'http://127.0.0.1:3000/webhooks',
    ]);
    expect(bare(['URL', '--race', '--probe', 'P'])).toEqual(['URL', '--race=2', '--probe', 'P']);
  });

  it('leaves a flag followed by a whole number, or written with =, as it is', () => {
    expect(bare(['URL', '--race', '3'])).toEqual(['URL', '--race', '3']);
    expect(bare(['URL', '--race=4'])).toEqual(['URL', '--race=4']);
    expect(bare(['URL', '--burst', '50/s'])).toEqual(['URL', '--burst', '50/s']);
  });

  it('reads nothing after --', () => {
    expect(bare(['URL', '--', '--race'])).toEqual(['URL', '--', '--race']);
  });
});
