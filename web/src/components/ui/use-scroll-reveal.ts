import { useEffect, type RefObject } from 'react';

/**
 * Adds the `animate-in` class to every `[data-animate]` element inside `root` once at least 10 % of it is
 * visible (site-spec §2, §9). Each element's delay comes from its `data-animate-delay` (ms).
 */
export function useScrollReveal(root: RefObject<HTMLElement | null>): void {
  useEffect(() => {
    const container = root.current;
    if (!container) return undefined;
    const elements = Array.from(container.querySelectorAll<HTMLElement>('[data-animate]'));
    for (const element of elements) {
      const delay = element.dataset.animateDelay;
      if (delay) element.style.transitionDelay = `${delay}ms`;
    }
    if (typeof IntersectionObserver === 'undefined') {
      for (const element of elements) element.classList.add('animate-in');
      return undefined;
    }
    const observer = new IntersectionObserver(
      (entries) => {
        for (const entry of entries) {
          if (!entry.isIntersecting) continue;
          entry.target.classList.add('animate-in');
          observer.unobserve(entry.target);
        }
      },
      { threshold: 0.1 },
    );
    for (const element of elements) observer.observe(element);
    return () => observer.disconnect();
  }, [root]);
}

/** Delay of the card at `index`: 100 ms per position (site-spec §9). */
export const cardDelay = (index: number): number => index * 100;
