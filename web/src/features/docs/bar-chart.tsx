import { BarController, BarElement, CategoryScale, Chart, Legend, LinearScale, Tooltip } from 'chart.js';
import { useEffect, useRef } from 'react';

Chart.register(BarController, BarElement, CategoryScale, LinearScale, Tooltip, Legend);

export interface BarSeries {
  readonly label: string;
  readonly values: readonly number[];
  readonly color: string;
}

/** A horizontal bar chart (Chart.js) with an accessible summary. */
export function BarChart({
  title,
  labels,
  series,
  unit,
}: {
  title: string;
  labels: readonly string[];
  series: readonly BarSeries[];
  unit: string;
}) {
  const canvas = useRef<HTMLCanvasElement>(null);
  useEffect(() => {
    if (!canvas.current) return undefined;
    const chart = new Chart(canvas.current, {
      type: 'bar',
      data: {
        labels: [...labels],
        datasets: series.map((s) => ({
          label: s.label,
          data: [...s.values],
          backgroundColor: s.color,
          borderRadius: 4,
        })),
      },
      options: {
        indexAxis: 'y',
        responsive: true,
        maintainAspectRatio: false,
        animation: false,
        plugins: { legend: { display: series.length > 1 }, tooltip: { enabled: true } },
        scales: { x: { title: { display: true, text: unit }, beginAtZero: true } },
      },
    });
    return () => chart.destroy();
  }, [labels, series, unit]);
  return (
    <figure style={{ margin: '24px 0' }}>
      <figcaption style={{ fontWeight: 600, marginBottom: 8 }}>{title}</figcaption>
      <div style={{ position: 'relative', height: Math.max(160, labels.length * 34 + 60) }}>
        <canvas
          ref={canvas}
          role="img"
          aria-label={`${title}: ${labels.map((l, i) => `${l} ${series.map((s) => s.values[i]).join(' / ')} ${unit}`).join('; ')}`}
        />
      </div>
    </figure>
  );
}
