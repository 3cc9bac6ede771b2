// What the emulator commands tell people: the ready message of `svc emulator start` with the next commands,
// and what to do with a key or an endpoint just created. Every command printed runs as printed.
import {SANDBOX_LINK_NOUNS} from '../definitions.js';
import {dataDirArg} from '../lib/hints.js';
import {shellQuote} from '../lib/invocation.js';
import type {CreatedSandboxLink, SandboxLink} from '../schemas/index.js';
import type {ReadyView} from '../services/emulator/start.js';
import {type Column, renderTable} from './table.js';
import {relativeTime} from './time.js';
import type {ViewOptions} from './view-options.js';

export function renderReady(v: ReadyView): string {
  const lines = [
    'svc emulator is ready',
    `  API:          ${v.apiUrl}`,
    `  Account page: ${v.accountUrl}`,
    `  Data:         ${v.storage}`,
    `  Org:          ${v.orgId}`,
    `  Clock:        ${v.clockMode}`,
  ];
  if (v.clockMode !== 'real') {
    // The manual clock is for walking a receiver through the schedule; the receiver itself runs on a real clock.
    lines.push(
      v.signatureClock === 'emulator'
        ? "  Signatures:   the emulator's clock (--signature-clock emulator): receivers must check t against it"
        : '  Signatures:   the real time, so receivers on a real clock accept them however far the clock moves',
    );
  }
  if (v.chaos) lines.push(`  Chaos:        ${v.chaos} (replay a run with the same seed)`);
  if (v.rateLimitOff) {
    lines.push(
      '  Rate limit:   OFF: wrong keys are never answered 429 (--no-rate-limit; for API fuzzers only)',
    );
  }
  lines.push('');
  const where = v.svc === 'npx svc' ? 'in another terminal, in this folder' : 'in another terminal';
  // Each line stands alone (a flag rather than an export), so it runs in whichever terminal it is typed.
  const dir = dataDirArg(v.dataDir);
  const login = `${v.svc} login --api-url ${v.apiUrl}`;
  lines.push(
    'Manage keys and webhook endpoints on the account page:',
    `  open ${v.accountUrl} and sign in with any email address; the sign-in link`,
    `  appears here and at ${v.accountUrl}/mailbox${v.owned ? '' : ' (the first address to sign in owns this org)'}`,
    '',
  );
  if (v.cliCanReach === false) {
    lines.push(
      `The svc CLI sends a key over plain http only to localhost, 127.0.0.1 and [::1], so it will not use`,
      `${v.apiUrl}. To use the CLI as well, listen on every interface (--host 0.0.0.0), which includes 127.0.0.1.`,
      ...(v.demoKey ? ['', 'Demo API key (shown once, keep it):', `  ${v.demoKey.secret}`] : []),
      '',
      'Press Ctrl+C to stop.',
      '',
    );
    return lines.join('\n');
  }
  if (v.demoKey) {
    lines.push(
      v.demoKey.reused
        ? 'Demo API key (the same as at earlier starts on this data dir; it works until revoked):'
        : v.inMemory
          ? 'Demo API key (new; it lasts as long as this in-memory emulator):'
          : 'Demo API key (new; every later --demo start on this data dir prints this one again):',
      `  ${v.demoKey.secret}`,
      '',
      `Try next, ${where}:`,
      `  ${login}   # paste the demo key when asked`,
      `  ${v.svc} org`,
      `  ${v.svc} listen --forward-to http://localhost:3000/webhooks${dir}   # relays events to your server; keep it running`,
      `  ${v.svc} trigger sandbox.ready${dir}   # in one more terminal: emits an event`,
      `  ${v.svc} webhooks list   # the relay endpoint's id, for \`webhooks deliveries\``,
      '',
      'Or, in scripts, export the key instead of logging in:',
      ...(v.dataDir ? [`  export SVC_EMULATOR_DATA_DIR=${shellQuote(v.dataDir)}`] : []),
      `  export SVC_API_URL=${v.apiUrl}`,
      `  export SVC_API_KEY=${v.demoKey.secret}`,
      `  ${v.svc} keys list`,
      '',
    );
  } else {
    lines.push(
      `Next, ${where}:`,
      `  ${v.svc} emulator keys create --name dev${dir} | ${login}   # mints a key and logs in with it`,
      `  ${v.svc} org`,
      '',
    );
  }
  lines.push('Press Ctrl+C to stop.', '');
  return lines.join('\n');
}

/** Under a key just created: the login that uses it, with the key on standard input, never in argv. */
export function keyCreatedHint(o: {svc: string; apiUrl: string; name: string; dataDir?: string}): string {
  const login = `${o.svc} login --api-url ${o.apiUrl}`;
  return [
    `Log in with it: ${login}   (paste the key when asked)`,
    `Or create and log in in one step: ${o.svc} emulator keys create --name ${shellQuote(o.name)}${dataDirArg(o.dataDir)} | ${login}`,
  ].join('\n');
}

/** Under an endpoint just added: how to see what it receives. */
export function webhookCreatedHint(o: {svc: string; id: string; event: string; dataDir?: string}): string {
  return [
    `Send it an event: ${o.svc} trigger ${o.event}${dataDirArg(o.dataDir)}`,
    `Then see its deliveries: ${o.svc} webhooks deliveries ${o.id}`,
  ].join('\n');
}

/**
 * The ways out when the emulator refuses a URL that is not public. A receiver on this machine is best reached
 * through the relay; one elsewhere on the network only by letting the emulator post to private addresses.
 */
/** Under a link just made (its URL is on stdout): what it is, that the URL is its credential, and how to watch it. */
export function linkCreatedHint(o: {svc: string; link: CreatedSandboxLink; dataDir?: string}): string {
  const {link} = o;
  const target = link.kind === 'port' ? ` to port ${link.port} of this machine` : '';
  return [
    `Opened ${SANDBOX_LINK_NOUNS[link.kind][0]} ${link.id} onto ${link.sandbox_id}${target}, for key ${link.key_id}.`,
    'The URL is shown once: anyone holding it reaches the sandbox until the key is revoked or expires, or the sandbox stops.',
    `See its status: ${o.svc} emulator sandboxes links list ${link.sandbox_id}${dataDirArg(o.dataDir)}`,
  ].join('\n');
}

const LINK_STATUS_STYLE = {active: 'green', revoked: 'red', sandbox_stopped: 'yellow'} as const;

export function renderSandboxLinks(
  links: SandboxLink[],
  view: ViewOptions & {svc: string; dataDir?: string},
): string {
  if (links.length === 0) {
    return `No sandbox links. Open one with ${view.svc} emulator sandboxes links create SBX_ID --kind port --port 3000 --key KEY_ID${dataDirArg(view.dataDir)}\n`;
  }
  const columns: Column<SandboxLink>[] = [
    {header: 'ID', value: (l) => l.id},
    {header: 'KIND', value: (l) => (l.kind === 'port' ? `port ${l.port}` : l.kind)},
    {header: 'STATUS', value: (l) => l.status, style: (l) => LINK_STATUS_STYLE[l.status]},
    {header: 'SANDBOX', value: (l) => l.sandbox_id, dropOrder: 2},
    {header: 'KEY', value: (l) => l.key_id, dropOrder: 3},
    {header: 'CREATED', value: (l) => relativeTime(l.created_at, view.nowMs), dropOrder: 1},
  ];
  return renderTable(columns, links, view);
}
