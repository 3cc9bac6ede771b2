// Text from the API is shown in a terminal: control characters could move the cursor or fake output.
export function sanitize(text: string): string {
  return text.replace(/[\u0000-\u001f\u007f-\u009f]/g, ' ');
}

export function truncate(text: string, width: number): string {
  if (width <= 0) return '';
  const chars = Array.from(text);
  if (chars.length <= width) return text;
  if (width === 1) return '…';
  return `${chars.slice(0, width - 1).join('')}…`;
}

export function displayWidth(text: string): number {
  return Array.from(text).length;
}
