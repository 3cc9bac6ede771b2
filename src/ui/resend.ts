// What `svc emulator deliveries resend --failed` prints for a person: how many, which, and on which emulator.

export function renderResentFailed(result: {
  resent: number;
  deliveries: readonly string[];
  api_url: string;
}): string {
  if (result.resent === 0)
    return `No failed delivery matched on the emulator at ${result.api_url}; nothing was resent.\n`;
  const n = result.resent === 1 ? '1 failed delivery' : `${result.resent} failed deliveries`;
  return `Resent ${n} on the emulator at ${result.api_url}, oldest first:\n${result.deliveries.map((id) => `  ${id}\n`).join('')}`;
}
