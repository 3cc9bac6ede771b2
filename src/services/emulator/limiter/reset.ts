// `svc emulator limiter reset`: a test suite that asserts 401s starts its next part with a clean slate.
import {type ConnectOptions, withControl} from '../connect.js';

export function resetLimiter(options: ConnectOptions): Promise<{reset: true; api_url: string}> {
  return withControl(options, async (control, info) => ({
    ...(await control.resetLimiter()),
    api_url: info.api_url,
  }));
}
