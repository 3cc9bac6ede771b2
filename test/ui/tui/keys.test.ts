// Which action each key is, on its own: keys typed together count one by one, the filter line takes text, help
// takes any key, and a list's page is the body's height.
import type {Key} from 'ink';
import {describe, expect, it} from 'vitest';
import {handleKey, type KeyActions, type KeyState} from '../../../src/ui/tui/keys.js';

const NO_KEY = {} as Key;

function run(input: string, key: Partial<Key> = {}, state: Partial<KeyState> = {}) {
  const done: string[] = [];
  let filter = state.filter ?? '';
  const act: KeyActions = {
    quit: () => done.push('quit'),
    showHelp: () => done.push('help'),
    hideHelp: () => done.push('hide help'),
    move: (by) => done.push(`move ${by}`),
    open: () => done.push('open'),
    back: () => done.push('back'),
    resend: () => done.push('resend'),
    setEditing: (on) => done.push(on ? 'edit' : 'stop editing'),
    setFilter: (value) => {
      filter = typeof value === 'string' ? value : value(filter);
      done.push(`filter ${JSON.stringify(filter)}`);
    },
    clearMessage: () => undefined,
  };
  const full: KeyState = {help: false, editing: false, filter: '', filterable: true, page: 10, ...state};
  handleKey(input, {...NO_KEY, ...key}, full, act);
  return done;
}

describe('handleKey', () => {
  it('counts keys typed faster than a frame one by one', () => {
    expect(run('jjkq')).toEqual(['move 1', 'move 1', 'move -1', 'quit']);
  });

  it('moves a page by the body height, and to either end', () => {
    expect(run('', {pageDown: true})).toEqual(['move 10']);
    expect(run('G')).toEqual(['move 1000000']);
    expect(run('g')).toEqual(['move -1000000']);
  });

  it('opens the filter line with the text typed after the slash, on lists only', () => {
    expect(run('/acme')).toEqual(['edit', 'filter "acme"']);
    expect(run('/acme', {}, {filterable: false})).toEqual([]);
  });

  it('takes text while the filter line is open, and esc clears it', () => {
    expect(run('x', {}, {editing: true, filter: 'ab'})).toEqual(['filter "abx"']);
    expect(run('', {backspace: true}, {editing: true, filter: 'ab'})).toEqual(['filter "a"']);
    expect(run('', {escape: true}, {editing: true, filter: 'ab'})).toEqual(['filter ""', 'stop editing']);
  });

  it('lets any key close the help, and esc clear a filter before going back', () => {
    expect(run('q', {}, {help: true})).toEqual(['hide help']);
    expect(run('', {escape: true}, {filter: 'ab'})).toEqual(['filter ""']);
    expect(run('', {escape: true})).toEqual(['back']);
    expect(run('r')).toEqual(['resend']);
  });
});
