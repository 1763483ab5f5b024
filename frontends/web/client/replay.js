// The replay player, bundled with rrweb-player into dist/web/assets/replay.js at build time
// (scripts/build-web.mjs): loads every segment of the replay from this server, plays them, and makes
// the error bookmarks seek to their moment.
/* global document, fetch */
import rrwebPlayer from 'rrweb-player';

async function main() {
  const root = document.getElementById('player');
  if (!root) return;
  const id = root.dataset.replay ?? '';
  const count = Number(root.dataset.segments ?? '0');
  const events = [];
  for (let n = 0; n < count; n++) {
    const res = await fetch(`/replays/${encodeURIComponent(id)}/segments/${n}`, { credentials: 'same-origin', headers: { accept: 'application/json' } });
    if (!res.ok) continue;
    const body = await res.json();
    events.push(...(Array.isArray(body) ? body : (body.events ?? body.data ?? [])));
  }
  events.sort((a, b) => a.timestamp - b.timestamp);
  if (events.length < 2) {
    root.textContent = 'This replay has too few recorded events to play.';
    return;
  }
  const player = new rrwebPlayer({ target: root, props: { events, autoPlay: false, width: Math.min(1024, root.clientWidth || 1024) } });
  for (const button of Array.from(document.querySelectorAll('button.bookmark'))) {
    button.addEventListener('click', () => player.goto(Number(button.dataset.offset ?? '0'), true));
  }
  root.dataset.ready = 'true';
}

void main();
