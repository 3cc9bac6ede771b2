// The webhook URL policy: every spelling of a non-public address is refused, and resolved names are checked too.
import fc from 'fast-check';
import {describe, expect, it} from 'vitest';
import {checkEndpointHost, checkEndpointUrl, isPublicAddress} from '../../src/emulator/net/address-policy.js';

const refused = (url: string) => {
  const r = checkEndpointUrl(url);
  return !r.ok;
};

describe('checkEndpointUrl', () => {
  it('accepts an https URL on a public host or address', () => {
    expect(checkEndpointUrl('https://hooks.example.com/svc?x=1').ok).toBe(true);
    expect(checkEndpointUrl('https://93.184.215.14:8443/hook').ok).toBe(true);
    expect(checkEndpointUrl('https://[2606:4700::1111]/hook').ok).toBe(true);
  });

  it.each([
    ['plain http', 'http://hooks.example.com/'],
    ['another scheme', 'ftp://hooks.example.com/'],
    ['a user name', 'https://user@hooks.example.com/'],
    ['a password', 'https://:secret@hooks.example.com/'],
    ['a fragment', 'https://hooks.example.com/#x'],
    ['an empty fragment', 'https://hooks.example.com/#'],
    ['a relative URL', '/hooks'],
    ['whitespace', 'https://hooks.example.com/a b'],
    ['a newline', 'https://hooks.exa\nmple.com/'],
    ['localhost', 'https://localhost/'],
    ['localhost with a trailing dot', 'https://localhost./'],
    ['a .localhost name', 'https://app.localhost/'],
    ['loopback', 'https://127.0.0.1/'],
    ['decimal loopback', 'https://2130706433/'],
    ['hex loopback', 'https://0x7f000001/'],
    ['octal loopback', 'https://0177.0.0.1/'],
    ['short loopback', 'https://127.1/'],
    ['unspecified', 'https://0.0.0.0/'],
    ['private 10/8', 'https://10.1.2.3/'],
    ['private 172.16/12', 'https://172.20.0.1/'],
    ['private 192.168/16', 'https://192.168.1.1/'],
    ['link-local (cloud metadata)', 'https://169.254.169.254/latest/meta-data'],
    ['CGNAT', 'https://100.64.0.1/'],
    ['multicast', 'https://224.0.0.1/'],
    ['documentation range', 'https://192.0.2.10/'],
    ['documentation range 2', 'https://198.51.100.7/'],
    ['documentation range 3', 'https://203.0.113.9/'],
    ['broadcast', 'https://255.255.255.255/'],
    ['IPv6 loopback', 'https://[::1]/'],
    ['IPv4-mapped IPv6 loopback', 'https://[::ffff:127.0.0.1]/'],
    ['IPv4-mapped IPv6 in hex', 'https://[::ffff:7f00:1]/'],
    ['IPv6 unique local', 'https://[fd00::1]/'],
    ['IPv6 link-local', 'https://[fe80::1]/'],
    ['IPv6 documentation', 'https://[2001:db8::1]/'],
    ['IPv6 multicast', 'https://[ff02::1]/'],
    ['IPv4-compatible IPv6 loopback', 'https://[::127.0.0.1]/x'],
    ['IPv4-compatible IPv6 public', 'https://[::93.184.215.14]/x'],
    ['port 0', 'https://hooks.example.com:0/x'],
  ])('refuses %s', (_name, url) => {
    expect(refused(url)).toBe(true);
  });

  it.each([
    ['https:///x', 'an empty authority'],
    ['https:/x', 'one slash'],
    ['https:x', 'no slashes'],
    ['https:\\\\x/y', 'backslashes'],
  ])('refuses %s (%s) as typed, instead of storing a host nobody typed', (url) => {
    for (const allowLocal of [false, true]) {
      const r = checkEndpointUrl(url, {allowLocal});
      expect(r.ok).toBe(false);
      expect(r.ok ? '' : r.reason).toMatch(/^url has no host/);
    }
  });

  it.each([
    ['https://hooks.test/x', '.test'],
    ['https://receiver.invalid/', '.invalid'],
    ['https://app.local/x', '.local'],
    ['https://hooks.example/x', '.example'],
    ['https://x.onion/', '.onion'],
    ['https://router.home.arpa/', '.home.arpa'],
    ['https://svc.internal/', '.internal'],
    ['https://HOOKS.TEST./x', '.test'],
  ])('refuses %s, a special-use domain, and says which', (url, domain) => {
    const r = checkEndpointUrl(url);
    expect(r.ok ? '' : r.reason).toContain(`is in ${domain}, a special-use domain`);
  });

  it('refuses a single-label host with the reason, and keeps real names under example.com and the like', () => {
    const r = checkEndpointUrl('https://intranet/hooks');
    expect(r.ok ? '' : r.reason).toBe(
      'url host intranet is a single label, which names a host on a local network only; use its full name (like intranet.example.com)',
    );
    expect(checkEndpointUrl('https://x/').ok).toBe(false);
    expect(checkEndpointUrl('https://hooks.example.com/svc').ok).toBe(true);
    expect(checkEndpointUrl('https://hooks.testing.dev/svc').ok).toBe(true);
    expect(checkEndpointUrl('https://latest.io/').ok).toBe(true);
    // A receiver on this machine or network may have any name once local endpoints are allowed.
    expect(checkEndpointUrl('http://intranet:3000/', {allowLocal: true}).ok).toBe(true);
    expect(checkEndpointUrl('https://hooks.test/', {allowLocal: true}).ok).toBe(true);
  });

  it('refuses URLs longer than 2048 characters and accepts one of exactly 2048', () => {
    const base = 'https://hooks.example.com/';
    expect(checkEndpointUrl(base + 'a'.repeat(2048 - base.length)).ok).toBe(true);
    expect(checkEndpointUrl(base + 'a'.repeat(2049 - base.length)).ok).toBe(false);
  });

  it('allows http and loopback only when local endpoints are allowed', () => {
    expect(checkEndpointUrl('http://127.0.0.1:3000/hooks', {allowLocal: true}).ok).toBe(true);
    expect(checkEndpointUrl('http://localhost:3000/hooks', {allowLocal: true}).ok).toBe(true);
    // Credentials and fragments stay refused: only the scheme and host rules relax.
    expect(checkEndpointUrl('http://u:p@localhost:3000/', {allowLocal: true}).ok).toBe(false);
    expect(checkEndpointUrl('http://localhost:3000/#x', {allowLocal: true}).ok).toBe(false);
    expect(checkEndpointUrl('ftp://localhost/', {allowLocal: true}).ok).toBe(false);
  });

  it('refuses every private IPv4 address in any numeric spelling the URL parser accepts', () => {
    const privateV4 = fc.oneof(
      fc.tuple(fc.constant(10), fc.nat(255), fc.nat(255), fc.nat(255)),
      fc.tuple(fc.constant(127), fc.nat(255), fc.nat(255), fc.nat(255)),
      fc.tuple(fc.constant(192), fc.constant(168), fc.nat(255), fc.nat(255)),
      fc.tuple(fc.constant(172), fc.integer({min: 16, max: 31}), fc.nat(255), fc.nat(255)),
      fc.tuple(fc.constant(169), fc.constant(254), fc.nat(255), fc.nat(255)),
    );
    const spell = fc.constantFrom('dotted', 'decimal', 'hex', 'octal', 'mapped');
    fc.assert(
      fc.property(privateV4, spell, ([a, b, c, d], how) => {
        const n = ((a << 24) >>> 0) + (b << 16) + (c << 8) + d;
        const host =
          how === 'dotted'
            ? `${a}.${b}.${c}.${d}`
            : how === 'decimal'
              ? String(n)
              : how === 'hex'
                ? `0x${n.toString(16)}`
                : how === 'octal'
                  ? [a, b, c, d].map((x) => `0${x.toString(8)}`).join('.')
                  : `[::ffff:${a}.${b}.${c}.${d}]`;
        return refused(`https://${host}/hook`);
      }),
      {numRuns: 500},
    );
  });
});

describe('the stored URL', () => {
  it('is the normalised form, so what is listed is where deliveries go', () => {
    const r = checkEndpointUrl('https://93.184.215.14\\@127.0.0.1/h');
    expect(r).toMatchObject({ok: true, normalized: 'https://93.184.215.14/@127.0.0.1/h'});
    expect(checkEndpointUrl('HTTPS://Hooks.Example.COM:443/a/../b')).toMatchObject({
      ok: true,
      normalized: 'https://hooks.example.com/b',
    });
  });
});

describe('isPublicAddress', () => {
  it('knows public from special-purpose addresses', () => {
    expect(isPublicAddress('8.8.8.8')).toBe(true);
    expect(isPublicAddress('2606:4700::1111')).toBe(true);
    expect(isPublicAddress('127.0.0.1')).toBe(false);
    expect(isPublicAddress('::ffff:10.0.0.1')).toBe(false);
    expect(isPublicAddress('fc00::1')).toBe(false);
    expect(isPublicAddress('::127.0.0.1')).toBe(false);
    expect(isPublicAddress('::8.8.8.8')).toBe(false);
    expect(isPublicAddress('not an address')).toBe(false);
  });
});

describe('checkEndpointHost', () => {
  it('refuses a name when any of its addresses is private (DNS answers are not trusted one by one)', async () => {
    const lookup = async () => [
      {address: '93.184.215.14', family: 4},
      {address: '10.0.0.5', family: 4},
    ];
    expect(await checkEndpointHost('mixed.example.com', lookup)).toMatchObject({ok: false});
  });

  it('says so in a sentence that follows the field name ("url must …")', async () => {
    const lookup = async () => [{address: '10.0.0.5', family: 4}];
    const r = await checkEndpointHost('inside.example.com', lookup);
    expect(r.ok ? '' : `url ${r.reason}`).toBe(
      'url must point at a public host, and inside.example.com resolves to a private, loopback or reserved address',
    );
  });

  it('accepts a name whose addresses are all public', async () => {
    const lookup = async () => [
      {address: '93.184.215.14', family: 4},
      {address: '2606:2800:21f:cb07:6820:80da:af6b:8b2c', family: 6},
    ];
    expect(await checkEndpointHost('hooks.example.com', lookup)).toEqual({
      ok: true,
      addresses: ['93.184.215.14', '2606:2800:21f:cb07:6820:80da:af6b:8b2c'],
    });
  });

  it('accepts a name DNS cannot answer for with a warning (offline), and refuses localhost without asking DNS', async () => {
    const failing = async () => {
      throw Object.assign(new Error('ENOTFOUND'), {code: 'ENOTFOUND'});
    };
    expect(await checkEndpointHost('nowhere.invalid', failing)).toMatchObject({
      ok: true,
      addresses: [],
      warning: expect.stringMatching(/could not be resolved now; the endpoint is saved/),
    });
    expect(await checkEndpointHost('empty.example', async () => [])).toMatchObject({
      ok: true,
      warning: expect.any(String),
    });
    let asked = false;
    const spy = async () => {
      asked = true;
      return [{address: '93.184.215.14', family: 4}];
    };
    expect(await checkEndpointHost('db.localhost', spy)).toMatchObject({ok: false});
    expect(asked).toBe(false);
  });
});

describe('where a URL refused as local points', () => {
  it('says this machine, a local network or plain http, which the CLI chooses its way out by', async () => {
    const kind = (url: string) => {
      const r = checkEndpointUrl(url);
      return r.ok ? 'accepted' : r.local;
    };
    for (const url of [
      'http://localhost:3000/h',
      'https://127.0.0.1/h',
      'https://[::1]/h',
      'http://0.0.0.0/h',
    ])
      expect(kind(url), url).toBe('this_machine');
    for (const url of ['https://10.0.0.5/h', 'http://192.168.1.4/h', 'https://[fd00::1]/h', 'http://nas/h'])
      expect(kind(url), url).toBe('local_network');
    expect(kind('http://hooks.example.com/h')).toBe('plain_http');
    expect(kind('https://hooks.example.com/h#x')).toBeUndefined();
    const resolvesPrivate = async () => [{address: '10.1.2.3', family: 4}];
    expect(await checkEndpointHost('internal.example.com', resolvesPrivate)).toMatchObject({
      ok: false,
      local: 'local_network',
    });
  });
});
