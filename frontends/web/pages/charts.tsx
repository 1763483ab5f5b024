// Charts drawn on the server as SVG: they need no script, and SVG attributes (not inline styles)
// place the bars, so the strict Content-Security-Policy holds.
import { h } from '../jsx.js';
/**
 * One bar per bucket (`start` is the first bucket's start, `size` each bucket's length, epoch ms),
 * each titled with its hours; an empty bucket is a baseline tick, so the time axis shows even when
 * every event fell in one hour.
 */
export function Sparkline({ counts, label, start, size }: { counts: number[]; label: string; start: number; size: number }) {
  const max = Math.max(1, ...counts);
  const width = 96;
  const height = 20;
  const step = width / counts.length;
  return (
    <svg class="spark" width={width} height={height} viewBox={`0 0 ${width} ${height}`} role="img" aria-label={label}>
      {counts.map((n, i) => {
        const barHeight = n === 0 ? 1 : Math.max(2, (n / max) * height);
        return (
          <rect class={n === 0 ? 'empty' : undefined} x={i * step} y={height - barHeight} width={Math.max(1, step - 1)} height={barHeight}>
            <title>{`${hourRange(start + i * size, size)}: ${n} event${n === 1 ? '' : 's'}`}</title>
          </rect>
        );
      })}
    </svg>
  );
}

/** `2026-11-27 04:00–05:00 UTC`. */
function hourRange(from: number, size: number): string {
  const iso = new Date(from).toISOString();
  return `${iso.slice(0, 10)} ${iso.slice(11, 16)}–${new Date(from + size).toISOString().slice(11, 16)} UTC`;
}

export function BarChart({ counts, labels, title }: { counts: number[]; labels: string[]; title: string }) {
  const max = Math.max(1, ...counts);
  const width = 720;
  const height = 120;
  const step = width / counts.length;
  const total = counts.reduce((a, b) => a + b, 0);
  return (
    <figure class="chart">
      <svg viewBox={`0 0 ${width} ${height + 16}`} role="img" aria-label={`${title}: ${total} events`}>
        {counts.map((n, i) => {
          const barHeight = n === 0 ? 0 : Math.max(2, (n / max) * height);
          return (
            <rect x={i * step + 1} y={height - barHeight} width={Math.max(1, step - 2)} height={barHeight}>
              <title>{`${labels[i]}: ${n}`}</title>
            </rect>
          );
        })}
        <text x="0" y={height + 13}>
          {labels[0]}
        </text>
        <text x={width} y={height + 13} text-anchor="end">
          {labels[labels.length - 1]}
        </text>
      </svg>
      <figcaption>
        {title}: {total} events (most in one bar: {max === 1 && total === 0 ? 0 : max})
      </figcaption>
    </figure>
  );
}
