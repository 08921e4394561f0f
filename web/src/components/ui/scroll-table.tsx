import { useEffect, useRef, useState, type ReactNode } from 'react';
import styles from './scroll-table.module.css';

/**
 * A table wider than its column scrolls sideways inside this box, which says so: a hint above it while columns
 * are hidden, a shadow on the side that has more, and the first column kept in view. The box takes keyboard focus
 * so the arrow keys scroll it.
 *
 * @example <ScrollTable label="Comparison with similar products"><table>…</table></ScrollTable>
 */
export function ScrollTable({ label, children }: { label: string; children: ReactNode }) {
  const box = useRef<HTMLDivElement>(null);
  const [more, setMore] = useState({ left: false, right: false });

  useEffect(() => {
    const el = box.current;
    if (!el) return undefined;
    const measure = () =>
      setMore({ left: el.scrollLeft > 1, right: el.scrollLeft + el.clientWidth < el.scrollWidth - 1 });
    measure();
    el.addEventListener('scroll', measure, { passive: true });
    const observer = new ResizeObserver(measure);
    observer.observe(el);
    return () => {
      el.removeEventListener('scroll', measure);
      observer.disconnect();
    };
  }, []);

  const overflowing = more.left || more.right;
  return (
    <div className={styles.wrap}>
      {overflowing && (
        <p className={styles.hint} data-testid="scroll-hint">
          {more.right ? 'Scroll sideways for more columns →' : '← Scroll back for the first columns'}
        </p>
      )}
      <div
        ref={box}
        className={`${styles.box} ${more.left ? styles.moreLeft : ''} ${more.right ? styles.moreRight : ''}`}
        role="region"
        aria-label={label}
        tabIndex={overflowing ? 0 : undefined}
      >
        {children}
      </div>
    </div>
  );
}
