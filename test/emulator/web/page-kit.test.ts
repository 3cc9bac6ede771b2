// The account pages' kit, member by member: the one-time messages on the emulator's clock, and how a form's
// values and an operation's problems are read. (The whole kit at work is in account-http and account-page.)
import {describe, expect, it} from 'vitest';
import {manualClock} from '../../../src/emulator/clock.js';
import {invalidInput, OperationError} from '../../../src/emulator/operation-error.js';
import {FLASH_KEPT_MS, FLASHES_HELD, Flashes} from '../../../src/emulator/web/kit/flashes.js';
import {clip, formErrors, sentence, statusOf} from '../../../src/emulator/web/kit/forms.js';

const session = (idHash: string) => ({session: {idHash}});
const notice = (text: string) => ({kind: 'notice' as const, text});

describe('Flashes', () => {
  it('gives a flash once, to the page it was made for, on the same session', () => {
    const clock = manualClock(new Date('2031-05-01T12:00:00Z'));
    const flashes = new Flashes(() => clock.nowMs());
    flashes.put(session('a'), 'keys', notice('made'));
    expect(flashes.take(session('b'), 'keys')).toBeUndefined();
    expect(flashes.take(session('a'), 'webhooks')).toBeUndefined();
    expect(flashes.take(session('a'), 'keys')).toEqual(notice('made'));
    expect(flashes.take(session('a'), 'keys')).toBeUndefined();
  });

  it('drops a flash not picked up in time, by the clock it was given', () => {
    const clock = manualClock(new Date('2031-05-01T12:00:00Z'));
    const flashes = new Flashes(() => clock.nowMs());
    flashes.put(session('a'), 'keys', notice('kept'));
    clock.advance(FLASH_KEPT_MS - 1);
    expect(flashes.take(session('a'), 'keys')).toEqual(notice('kept'));
    flashes.put(session('a'), 'keys', notice('late'));
    clock.advance(FLASH_KEPT_MS);
    expect(flashes.take(session('a'), 'keys')).toBeUndefined();
  });

  it('forgets a session that signed out, and holds a bounded number, dropping the oldest', () => {
    const flashes = new Flashes(() => 0);
    flashes.put(session('gone'), 'keys', notice('x'));
    flashes.drop(session('gone'));
    expect(flashes.take(session('gone'), 'keys')).toBeUndefined();
    for (let i = 0; i <= FLASHES_HELD; i++) flashes.put(session(`s${i}`), 'keys', notice(String(i)));
    expect(flashes.take(session('s0'), 'keys')).toBeUndefined();
    expect(flashes.take(session(`s${FLASHES_HELD}`), 'keys')).toEqual(notice(String(FLASHES_HELD)));
  });
});

describe('forms', () => {
  it('puts each problem next to its field, named as the form names it, and the rest on the form', () => {
    const err = invalidInput([
      {field: 'url', message: 'must use https://'},
      {field: 'events', message: 'events are required'},
      {field: 'elsewhere', message: 'something else is wrong'},
    ]);
    expect(formErrors(err, ['url', 'events'])).toEqual({
      url: 'URL must use https://.',
      events: 'Events are required.',
      form: 'Something else is wrong.',
    });
    expect(formErrors(new OperationError('conflict', 'taken'), ['name'])).toEqual({form: 'Taken.'});
  });

  it('passes on anything that is not an operation problem', () => {
    const bug = new Error('a bug');
    expect(() => formErrors(bug, ['url'])).toThrow(bug);
    expect(() => statusOf(bug)).toThrow(bug);
    expect(statusOf(new OperationError('not_found', 'gone'))).toBe(404);
  });

  it('cuts a value short and reads a missing one as empty; makes a sentence of a message', () => {
    expect(clip('x'.repeat(2000))).toHaveLength(1000);
    expect(clip(null)).toBe('');
    expect(sentence('no such key')).toBe('No such key.');
    expect(sentence('Done!')).toBe('Done!');
  });
});
