import { useEffect } from 'react';

const siteName = 'GoDB';

/**
 * Gives the page its own `<title>` (tabs, history and bookmarks tell pages apart), restoring the previous one
 * when the page goes away.
 *
 * @example usePageTitle('Whitepaper') // document.title === 'Whitepaper — GoDB'
 */
export function usePageTitle(title: string | null): void {
  useEffect(() => {
    const previous = document.title;
    document.title = title ? `${title} — ${siteName}` : `${siteName} — The Unified Intelligent Data Platform`;
    return () => {
      document.title = previous;
    };
  }, [title]);
}
