// The account page's only script: copy buttons, and focus on what a page wants read first. Everything
// works without it; it adds comfort, never function.

document.addEventListener('DOMContentLoaded', () => {
  for (const button of document.querySelectorAll('button[data-copy]')) {
    const field = document.getElementById(button.getAttribute('data-copy'));
    if (!field) continue;
    const status = button.closest('section')?.querySelector('.copy-status');
    button.hidden = false;
    button.addEventListener('click', async () => {
      let copied = false;
      try {
        await navigator.clipboard.writeText(field.value);
        copied = true;
      } catch {
        field.select();
        copied = document.execCommand?.('copy') ?? false;
      }
      button.textContent = copied ? 'Copied' : 'Copy';
      if (status) status.textContent = copied ? 'Copied to the clipboard.' : 'Select the text and copy it.';
    });
  }

  for (const secret of document.querySelectorAll('input.secret')) {
    secret.addEventListener('focus', () => secret.select());
  }

  const first = document.querySelector('[data-focus]');
  if (first instanceof HTMLElement) first.focus();
});
