// Which hosts never go through a proxy: this machine's own, whatever NO_PROXY says.
import {describe, expect, it} from 'vitest';
import {bypassesProxy} from '../../src/lib/proxy.js';

const hostOf = (url: string) => new URL(url).hostname;

describe('bypassesProxy', () => {
  it.each([
    'http://localhost:4010',
    'http://127.0.0.1:4010',
    'http://127.42.0.7/',
    'http://[::1]:4010',
    'http://LOCALHOST/',
  ])('keeps %s off every proxy', (url) => expect(bypassesProxy(hostOf(url))).toBe(true));

  it.each([
    'https://api.svc.invalid',
    'http://10.0.0.1/',
    'http://128.0.0.1/',
    'http://localhost.example.com/',
    'http://[::2]/',
  ])('lets %s use the proxy', (url) => expect(bypassesProxy(hostOf(url))).toBe(false));
});
