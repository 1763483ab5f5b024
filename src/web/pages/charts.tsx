// Charts drawn on the server as SVG: they need no script, and SVG attributes (not inline styles)
// place the bars, so the strict Content-Security-Policy holds.
import { h } from '../jsx.js';
export function Sparkline({ counts, label }: { counts: number[]; label: string }) {
  const max = Math.max(1, ...counts);
  const width = 96;
  const height = 20;
  const step = width / counts.length;
  return (
    <svg class="spark" width={width} height={height} viewBox={`0 0 ${width} ${height}`} role="img" aria-label={label}>
      {counts.map((n, i) => {
        const barHeight = n === 0 ? 0 : Math.max(1, (n / max) * height);
        return <rect x={i * step} y={height - barHeight} width={Math.max(1, step - 1)} height={barHeight} />;
      })}
    </svg>
  );
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
