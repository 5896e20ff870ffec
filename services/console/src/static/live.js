// Live regions (progressive enhancement; the contract is in the console's README, "Live pages"). A page marks
// a region with an id and `data-live="<families>"` (event type families, e.g. "call approval"), optionally
// `data-live-resource="<record id>"` for one record's page. When an event of a listed family (and record)
// arrives on /dashboard/live, the page is fetched again and the region's content replaced by the same
// region of the fresh page: the server's rendering stays the one source of truth, and a row, a badge or a
// transcript looks exactly as on reload. Without JavaScript the page is current on reload.
const regions = [...document.querySelectorAll('[data-live][id]')];
const announcer = document.getElementById('live-announcer');

if (regions.length > 0 && 'EventSource' in window) {
  const families = (region) => region.dataset.live.split(/\s+/).filter(Boolean);
  const concerns = (region, event) =>
    families(region).includes(event.type.split('.')[0]) &&
    (!region.dataset.liveResource || region.dataset.liveResource === event.resource_id);

  const stale = new Set();
  let timer;
  let refreshing = false;
  let source;

  const announce = (message) => {
    if (!announcer) return;
    // Emptied first, so the same message twice is announced twice.
    announcer.textContent = '';
    setTimeout(() => {
      announcer.textContent = message;
    }, 50);
  };

  const refresh = async () => {
    if (refreshing || stale.size === 0) return;
    refreshing = true;
    const due = [...stale];
    stale.clear();
    try {
      const response = await fetch(location.href, { credentials: 'same-origin', headers: { accept: 'text/html' } });
      // Signed out meanwhile (the sign-in page): leave the page as it is and stop listening.
      if (!response.ok || response.redirected) {
        source.close();
        return;
      }
      const fresh = new DOMParser().parseFromString(await response.text(), 'text/html');
      const changed = [];
      for (const region of due) {
        const replacement = fresh.getElementById(region.id);
        if (!replacement || replacement.innerHTML === region.innerHTML) continue;
        // Keep the keyboard where it was: the focused element, found again by its id in the new content.
        const focused = region.contains(document.activeElement) ? document.activeElement.id : '';
        region.replaceChildren(...replacement.childNodes);
        if (focused) document.getElementById(focused)?.focus();
        changed.push(region.dataset.liveLabel || 'This page');
      }
      if (changed.length > 0) announce(`${changed.join(', ')} updated.`);
    } catch {
      // The network is away: the next event or reconnect tries again.
      for (const region of due) stale.add(region);
    } finally {
      refreshing = false;
      if (stale.size > 0) schedule();
    }
  };

  // Events come in bursts (a call queued, ringing and started within a second): one fetch for the burst.
  const schedule = () => {
    clearTimeout(timer);
    timer = setTimeout(refresh, 250);
  };

  source = new EventSource('/dashboard/live');
  source.addEventListener('open', () => {
    // The stream does not replay what was missed while it was down (no Last-Event-ID), nor what happened
    // between the page's rendering and the stream's first opening (a message delivered while the page
    // loaded): re-read every region whenever it opens.
    for (const region of regions) stale.add(region);
    schedule();
    document.documentElement.dataset.liveState = 'open';
  });
  source.addEventListener('message', (message) => {
    let event;
    try {
      event = JSON.parse(message.data);
    } catch {
      return;
    }
    for (const region of regions) if (concerns(region, event)) stale.add(region);
    if (stale.size > 0) schedule();
  });
}
