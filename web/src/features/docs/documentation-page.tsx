import { lazy, Suspense, type ComponentType } from 'react';
import { Link, useParams } from 'react-router';
import { paths } from '../../config/paths';
import { usePageTitle } from '../../lib/page-title';
import { defaultDocSlug, docSections, type DocSlug } from './doc-sections';
import prose from '../../components/ui/prose.module.css';
import styles from './documentation-page.module.css';

const load = (loader: () => Promise<{ default: ComponentType }>) => lazy(loader);

/** Each section is its own chunk: the reference, with the whole catalogue, loads only when opened. */
const sections: Record<DocSlug, ComponentType> = {
  introduction: load(() => import('./sections/introduction')),
  'system-architecture': load(() => import('./sections/system-architecture')),
  'core-features': load(() => import('./sections/core-features')),
  'technical-implementation': load(() => import('./sections/technical-implementation')),
  'api-reference': load(() => import('./reference/api-reference')),
  'grpc-reference': load(() => import('./reference/grpc-reference-section')),
  'client-libraries': load(() => import('./sections/client-libraries')),
  performance: load(() => import('./sections/performance')),
  'use-cases': load(() => import('./sections/use-cases')),
  'deployment-guide': load(() => import('./sections/deployment-guide')),
  comparison: load(() => import('./sections/comparison')),
};

export function DocumentationPage() {
  const { section } = useParams();
  const slug = (docSections.some((s) => s.slug === section) ? section : defaultDocSlug) as DocSlug;
  const current = docSections.find((s) => s.slug === slug) ?? docSections[0];
  const Section = sections[slug];
  usePageTitle(`${current.title} — Documentation`);
  return (
    <div className={styles.layout}>
      <nav className={styles.sidebar} aria-label="Documentation sections">
        <p className={styles.sidebarTitle}>Documentation</p>
        <ol>
          {docSections.map((s) => (
            <li key={s.slug}>
              <Link
                to={paths.documentation.getHref(s.slug)}
                className={s.slug === slug ? `${styles.link} ${styles.active}` : styles.link}
                aria-current={s.slug === slug ? 'page' : undefined}
              >
                {s.title}
              </Link>
            </li>
          ))}
        </ol>
      </nav>
      <article className={`${styles.content} ${prose.prose} ${prose.text}`} aria-labelledby="doc-title">
        <h1 id="doc-title">{current.title}</h1>
        <Suspense fallback={<p className={styles.loading}>Loading {current.title}…</p>}>
          <Section />
        </Suspense>
      </article>
    </div>
  );
}
