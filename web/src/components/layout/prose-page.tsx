import type { ReactNode } from 'react';
import { usePageTitle } from '../../lib/page-title';
import prose from '../ui/prose.module.css';
import styles from './prose-page.module.css';

/** A long-form text page (legal pages, whitepaper body) with a title block. */
export function ProsePage({ title, lead, children }: { title: string; lead?: ReactNode; children: ReactNode }) {
  usePageTitle(title);
  return (
    <article className={styles.page}>
      <header className={`${prose.titleBlock} ${styles.header}`}>
        <h1>{title}</h1>
        {lead && <p className={prose.lead}>{lead}</p>}
      </header>
      <div className={`${styles.body} ${prose.prose} ${prose.text}`}>{children}</div>
    </article>
  );
}
