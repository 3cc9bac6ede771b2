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

  // A list that changes by itself (deliveries): fetched again every few seconds while the tab is visible and
  // the box is ticked, and swapped in only when it changed and focus is not inside it.
  const live = document.querySelector('[data-live]');
  const toggle = document.querySelector('[data-live-toggle]');
  if (live && toggle) {
    toggle.closest('label').hidden = false;
    const status = document.querySelector('[data-live-status]');
    const every = Number(live.getAttribute('data-live')) || 5000;
    setInterval(async () => {
      if (!toggle.checked || document.visibilityState !== 'visible' || live.contains(document.activeElement))
        return;
      try {
        const res = await fetch(location.href, {credentials: 'same-origin', headers: {accept: 'text/html'}});
        if (!res.ok) return;
        const next = new DOMParser().parseFromString(await res.text(), 'text/html').getElementById(live.id);
        if (next && next.innerHTML !== live.innerHTML) {
          live.innerHTML = next.innerHTML;
          if (status) status.textContent = 'The deliveries list was updated.';
        }
      } catch {
        // Offline for a moment: the next tick tries again.
      }
    }, every);
  }

  const first = document.querySelector('[data-focus]');
  if (first instanceof HTMLElement) first.focus();
});
