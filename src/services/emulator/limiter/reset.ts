// `svc emulator limiter reset`: a test suite that asserts 401s starts its next part with a clean slate.
import {type ConnectOptions, withControl} from '../connect.js';

export function resetLimiter(options: ConnectOptions): Promise<{reset: true}> {
  return withControl(options, (control) => control.resetLimiter());
}
