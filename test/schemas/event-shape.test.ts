// Shaping a triggered event: values placed at dotted paths, the result checked against the event type's schema,
// every problem at once with its path and rule; the fields the emulator owns are refused with why.
import {describe, expect, it} from 'vitest';
import {MAX_EVENT_SETS} from '../../src/definitions.js';
import {checkSets, shapeEvent} from '../../src/schemas/event-shape.js';
import {sampleEvent} from '../../src/schemas/sample-event.js';

const ready = () => sampleEvent('sandbox.ready', {now: new Date('2031-01-01T00:00:00Z')});

describe('shapeEvent', () => {
  it('places each value and keeps the rest of the event as it was', () => {
    const event = ready();
    const result = shapeEvent(event, [
      {path: 'data.sandbox.name', value: 'web'},
      {path: 'data.sandbox.last_error', value: 'disk full'},
      {path: 'data.region', value: {name: 'eu'}},
    ]);
    expect(result.problems).toEqual([]);
    expect(result.event).toEqual({
      ...event,
      data: {sandbox: {...event.data.sandbox, name: 'web', last_error: 'disk full'}, region: {name: 'eu'}},
    });
    expect(event.data.sandbox.name).toBe('sample-sandbox');
  });

  it('removes an optional field with null and refuses to remove a required one', () => {
    const removed = shapeEvent(ready(), [{path: 'data.sandbox.expires_at', value: null}]);
    expect(removed.event?.data.sandbox).not.toHaveProperty('expires_at');
    const required = shapeEvent(ready(), [{path: 'data.sandbox.status', value: null}]);
    expect(required.problems).toEqual([
      {field: 'data.sandbox.status', message: expect.stringMatching(/string/)},
    ]);
  });

  it('names every path and the rule it breaks, all at once', () => {
    const result = shapeEvent(ready(), [
      {path: 'data.sandbox.name', value: 42},
      {path: 'data.sandbox.nmae', value: 'web'},
      {path: 'data.sandbox.status', value: true},
    ]);
    expect(result.event).toBeUndefined();
    expect(result.problems).toEqual([
      {field: 'data.sandbox.nmae', message: 'is not a field of a sandbox.ready event'},
    ]);
    const mixed = shapeEvent(ready(), [
      {path: 'created_at', value: 'x'},
      {path: 'data.sandbox.nmae', value: 'web'},
    ]);
    expect(mixed.problems.map((p) => p.field)).toEqual(['created_at', 'data.sandbox.nmae']);
    const types = shapeEvent(ready(), [
      {path: 'data.sandbox.name', value: 42},
      {path: 'data.sandbox.status', value: true},
    ]);
    expect(types.problems.map((p) => p.field)).toEqual(['data.sandbox.name', 'data.sandbox.status']);
    expect(types.problems[0]?.message).toMatch(/expected string, received number/);
  });

  it('refuses the fields the emulator owns, saying why, and paths that are not dotted names', () => {
    const problems = checkSets([
      {path: 'id', value: 'evt_x'},
      {path: 'type', value: 'sandbox.error'},
      {path: 'org_id', value: 'org_x'},
      {path: 'created_at', value: '2020-01-01T00:00:00Z'},
      {path: 'data.sandbox.id', value: 'sbx_x'},
      {path: 'data.__proto__.x', value: 1},
      {path: 'data..name', value: 1},
      {path: '', value: 1},
    ]);
    expect(problems.map((p) => p.field)).toEqual([
      'id',
      'type',
      'org_id',
      'created_at',
      'data.sandbox.id',
      'data.__proto__.x',
      'data..name',
      '(empty path)',
    ]);
    expect(problems[0]?.message).toMatch(/made by the emulator, one per event/);
    expect(problems[4]?.message).toMatch(/--sandbox/);
    expect(problems[5]?.message).toMatch(/not a dotted path/);
  });

  it('refuses a path given twice, a value under a field that is not an object, and too many values', () => {
    expect(
      checkSets([
        {path: 'data.sandbox.name', value: 'a'},
        {path: 'data.sandbox.name', value: 'b'},
      ]),
    ).toEqual([{field: 'data.sandbox.name', message: 'is set more than once'}]);
    expect(shapeEvent(ready(), [{path: 'data.sandbox.name.first', value: 'a'}]).problems).toEqual([
      {field: 'data.sandbox.name.first', message: 'goes through data.sandbox.name, which is not an object'},
    ]);
    const many = Array.from({length: MAX_EVENT_SETS + 1}, (_, i) => ({path: `data.f${i}`, value: i}));
    expect(checkSets(many)).toEqual([{field: 'set', message: `must hold at most ${MAX_EVENT_SETS} values`}]);
  });
});
