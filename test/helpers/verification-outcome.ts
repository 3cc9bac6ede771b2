// What a verification came to: 'ok', or the WebhookVerificationError reason. Any other throw fails the test.
import {WebhookVerificationError} from '../../src/webhooks/index.js';

export function outcome(run: () => unknown): string {
  try {
    run();
    return 'ok';
  } catch (err) {
    if (err instanceof WebhookVerificationError) return err.reason;
    throw err;
  }
}

export async function outcomeAsync(run: () => Promise<unknown>): Promise<string> {
  try {
    await run();
    return 'ok';
  } catch (err) {
    if (err instanceof WebhookVerificationError) return err.reason;
    throw err;
  }
}
