// The Chromium that the page tests and the packages' browser smoke test drive: SVC_CHROMIUM_PATH when set, else
// Debian's headless shell where it is installed (the same Chromium without the desktop browser around it: the page
// tests take about 40% less CPU with it), else the browser itself. CI installs the headless shell only.
import {existsSync} from 'node:fs';

const HEADLESS_SHELL = '/usr/bin/chromium-headless-shell';

export const CHROMIUM_PATH =
  process.env.SVC_CHROMIUM_PATH ?? (existsSync(HEADLESS_SHELL) ? HEADLESS_SHELL : '/usr/bin/chromium');
