// A tiny cookie-keeping client for the emulator's account page, the way a browser talks to it over plain HTTP, and
// the email sign-in through the emulator's log (its mailbox).
import {localhostFetch} from './localhost-fetch.js';

export type AccountClient = ReturnType<typeof accountClient>;

/** `baseUrl`: the page's origin, its own name (svc-<port>.localhost) unless it has none; resolved as browsers do. */
export function accountClient(baseUrl: string) {
  const jar = new Map<string, string>();
  const request = async (path: string, init: RequestInit = {}) => {
    const res = await localhostFetch(`${baseUrl}${path}`, {
      ...init,
      redirect: 'manual',
      headers: {
        ...(init.headers as Record<string, string>),
        cookie: [...jar].map(([k, v]) => `${k}=${v}`).join('; '),
      },
    });
    const setCookies = res.headers.getSetCookie();
    for (const c of setCookies) {
      const [pair] = c.split(';');
      const [k, v] = (pair as string).split('=') as [string, string];
      if (/Max-Age=0/i.test(c)) jar.delete(k);
      else jar.set(k, v);
    }
    return {status: res.status, text: await res.text(), setCookies, headers: res.headers};
  };
  const form = (path: string, fields: Record<string, string>, headers: Record<string, string> = {}) =>
    request(path, {
      method: 'POST',
      headers: {'content-type': 'application/x-www-form-urlencoded', ...headers},
      body: new URLSearchParams(fields).toString(),
    });
  return {baseUrl, jar, request, form};
}

export const csrfOf = (html: string) => /name="csrf" value="([^"]+)"/.exec(html)?.[1] as string;

/** Asks for a sign-in link and reads it from the emulator's log lines, as a person reads their mail. */
export async function askForSignInLink(
  c: AccountClient,
  email: string,
  logs: readonly string[],
): Promise<string> {
  const page = await c.request('/account');
  const sent = await c.form('/account/login', {csrf: csrfOf(page.text), email});
  if (sent.status !== 200) throw new Error(`asking for a sign-in link answered ${sent.status}`);
  const line = logs.findLast((l) => l.includes(`to ${email.toLowerCase()}:`)) as string;
  return /(\/account\/sign-in\?token=[A-Za-z0-9_-]+)/.exec(line)?.[1] as string;
}

export async function signIn(c: AccountClient, email: string, logs: readonly string[]) {
  const link = await askForSignInLink(c, email, logs);
  const confirm = await c.request(link);
  const token = new URL(link, c.baseUrl).searchParams.get('token') as string;
  return c.form('/account/sign-in', {csrf: csrfOf(confirm.text), token});
}
