// The client reads an answer's error envelope by hand, so importing it loads no zod (src/client/errors.ts): here
// it is held to the schema the emulator answers with and the OpenAPI document describes.
import {describe, expect, it} from 'vitest';
import {errorEnvelopeOf} from '../../src/client/errors.js';
import {ErrorBodySchema} from '../../src/schemas/index.js';

const BODIES: unknown[] = [
  {error: {code: 'not_found', message: 'no such key'}},
  {error: {code: 'invalid_request', message: 'bad', problems: [{field: 'name', message: 'required'}]}},
  {error: {code: 'invalid_request', message: 'bad', problems: 'not a list', extra: 1}},
  {error: {code: 'invalid_request', message: 'bad', problems: null}},
  {error: {code: 'x', message: 'y', problems: undefined}},
  {error: {code: 'x', message: 'y', retry_after: 3, nested: {a: [1]}}, request_id: 'req_1'},
  {error: {code: 1, message: 'y'}},
  {error: {code: 'x'}},
  {error: {code: 'x', message: null}},
  {error: []},
  {error: null},
  {error: 'boom'},
  {},
  [],
  null,
  undefined,
  'text',
  42,
];

describe('errorEnvelopeOf', () => {
  it.each(BODIES.map((body) => [JSON.stringify(body) ?? String(body), body]))(
    'reads %s as ErrorBodySchema does',
    (_, body) => {
      const parsed = ErrorBodySchema.safeParse(body);
      const expected = parsed.success ? parsed.data.error : undefined;
      const got = errorEnvelopeOf(body);
      expect(got).toStrictEqual(expected);
      if (got && expected) expect(Object.keys(got).sort()).toEqual(Object.keys(expected).sort());
    },
  );

  it('hands out a copy of the problems, not the answer', () => {
    const problems = [{field: 'a', message: 'b'}];
    const got = errorEnvelopeOf({error: {code: 'x', message: 'y', problems}});
    expect(got?.problems).toEqual(problems);
    expect(got?.problems).not.toBe(problems);
  });
});
