import { Fragment } from 'react';
import { usePageTitle } from '../../lib/page-title';
import { whitepaperSections, whitepaperSubtitle, whitepaperTitle, type Block } from './whitepaper-content';
import prose from '../../components/ui/prose.module.css';
import styles from './whitepaper-page.module.css';

export const whitepaperPdfPath = '/godb-whitepaper.pdf';

function render(block: Block, key: number) {
  if ('h3' in block) return <h3 key={key}>{block.h3}</h3>;
  if ('list' in block)
    return (
      <ul key={key}>
        {block.list.map((item) => (
          <li key={item}>{item}</li>
        ))}
      </ul>
    );
  return <p key={key}>{block.p}</p>;
}

export function WhitepaperPage() {
  usePageTitle('Whitepaper');
  return (
    <div className={styles.layout}>
      <aside className={styles.toc} aria-label="Whitepaper sections">
        <p className={styles.tocTitle}>Contents</p>
        <ol>
          {whitepaperSections.map((s) => (
            <li key={s.id}>
              <a href={`#${s.id}`}>{s.title}</a>
            </li>
          ))}
        </ol>
        <a className={styles.download} href={whitepaperPdfPath} download>
          Download PDF
        </a>
      </aside>
      <article className={`${styles.paper} ${prose.text}`}>
        <header className={`${prose.titleBlock} ${styles.header}`}>
          <p className={styles.eyebrow}>Whitepaper</p>
          <h1>{whitepaperTitle}</h1>
          <p className={prose.lead}>{whitepaperSubtitle}</p>
          <a className={styles.downloadInline} href={whitepaperPdfPath} download>
            Download the whitepaper (PDF)
          </a>
        </header>
        {whitepaperSections.map((section) => (
          <section key={section.id} id={section.id} aria-labelledby={`${section.id}-title`}>
            <h2 id={`${section.id}-title`}>{section.title}</h2>
            {section.blocks.map((block, i) => (
              <Fragment key={i}>{render(block, i)}</Fragment>
            ))}
          </section>
        ))}
      </article>
    </div>
  );
}
