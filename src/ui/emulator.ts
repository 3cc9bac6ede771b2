// What the emulator commands tell people: the ready message of `svc emulator start` with the next commands,
// and what to do with a key or an endpoint just created. Every command printed runs as printed.
import {shellQuote} from '../lib/invocation.js';

export interface ReadyView {
  apiUrl: string;
  accountUrl: string;
  /** Where the data lives, for people: a folder, "in memory" or "PostgreSQL". */
  storage: string;
  orgId: string;
  clockMode: string;
  /** Which time delivery signatures carry (worth saying only on a manual clock). */
  signatureClock?: 'real' | 'emulator';
  /** `reused`: the data dir's key from an earlier start, which still works. */
  demoKey?: {secret: string; reused: boolean};
  /** The emulator keeps nothing after it stops, so its demo key goes with it. */
  inMemory?: boolean;
  /** How svc runs from the user's folder: `svc`, `npx svc` or `node /path/to/bin/run.js`. */
  svc: string;
  /** Set when commands in other terminals must be told where this emulator keeps its runtime file. */
  dataDir?: string;
}

/** ` --data-dir DIR` when the user named one, so a printed command reaches the same emulator. */
export function dataDirArg(dataDir: string | undefined): string {
  return dataDir === undefined ? '' : ` --data-dir ${shellQuote(dataDir)}`;
}

export function renderReady(v: ReadyView): string {
  const lines = [
    'svc emulator is ready',
    `  API:          ${v.apiUrl}`,
    `  Account page: ${v.accountUrl}`,
    `  Data:         ${v.storage}`,
    `  Org:          ${v.orgId}`,
    `  Clock:        ${v.clockMode}`,
    '',
  ];
  if (v.clockMode === 'manual') {
    // The manual clock is for walking a receiver through the schedule; the receiver itself runs on a real clock.
    lines.splice(
      -1,
      0,
      v.signatureClock === 'emulator'
        ? "  Signatures:   the emulator's clock (--signature-clock emulator): receivers must check t against it"
        : '  Signatures:   the real time, so receivers on a real clock accept them however far the clock moves',
    );
  }
  const where = v.svc === 'npx svc' ? 'in another terminal, in this folder' : 'in another terminal';
  // Each line stands alone (a flag rather than an export), so it runs in whichever terminal it is typed.
  const dir = dataDirArg(v.dataDir);
  const login = `${v.svc} login --api-url ${v.apiUrl}`;
  lines.push(
    'Manage keys and webhook endpoints on the account page:',
    `  open ${v.accountUrl} and sign in with any email address; the sign-in link`,
    `  appears here and at ${v.accountUrl}/mailbox (the first address to sign in owns this org)`,
    '',
  );
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
export function localUrlWaysOut(o: {
  svc: string;
  url: string;
  dataDir?: string;
  onThisMachine?: boolean;
}): string[] {
  const restart = `stop it (${o.svc} emulator stop${dataDirArg(o.dataDir)}) and start it again with ${o.svc} emulator start --allow-local-endpoints${dataDirArg(o.dataDir)}`;
  if (o.onThisMachine === false) return [`Let the emulator post to private addresses: ${restart}`];
  return [
    `To receive events on this machine, relay them: ${o.svc} listen --forward-to ${shellQuote(o.url)}${dataDirArg(o.dataDir)}`,
    `Or let the emulator post to local URLs: ${restart}`,
  ];
}
