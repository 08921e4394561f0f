import { useRef } from 'react';
import { ButtonLink } from '../../components/ui/button';
import { cardDelay, useScrollReveal } from '../../components/ui/use-scroll-reveal';
import { paths } from '../../config/paths';
import { usePageTitle } from '../../lib/page-title';
import card from '../../components/ui/card.module.css';
import styles from './home-page.module.css';

const features = [
  {
    title: 'Vector Search',
    text: 'Similarity search using HNSW graphs with multiple distance metrics: cosine, euclidean and dot product.',
    icon: 'M4 18 10 6l4 8 3-5 3 9',
  },
  {
    title: 'Graph Operations',
    text: 'Relationship modeling with path finding and centrality measures over the links between your documents.',
    icon: 'M6 6h.01M18 6h.01M12 18h.01M6 6l6 12 6-12',
  },
  {
    title: 'Hybrid Search',
    text: 'Combined vector and text search: BM25 and embeddings fused into one ranking, tuned with a single alpha.',
    icon: 'M4 12h16M12 4v16',
  },
] as const;

const metrics = [
  { value: '50ms', label: 'Average latency' },
  { value: '1000+', label: 'Queries per second' },
  { value: '99.99%', label: 'Uptime' },
  { value: '1M+', label: 'Documents indexed' },
] as const;

export function HomePage() {
  usePageTitle(null);
  const root = useRef<HTMLDivElement>(null);
  useScrollReveal(root);
  return (
    <div ref={root}>
      <section className={styles.hero} aria-labelledby="hero-title">
        <div className={styles.heroInner}>
          <p className={styles.eyebrow}>Vector · Full-text · Hybrid · Geo · Graph</p>
          <h1 id="hero-title" className={styles.title}>
            The Unified Intelligent Data Platform
          </h1>
          <p className={styles.subtitle}>
            High-performance, distributed vector database and search engine designed for modern AI applications
          </p>
          <p className={styles.today}>
            By default it runs as a single node, embedded in one process; cluster mode on NATS JetStream is in preview.
          </p>
          <div className={styles.actions}>
            <ButtonLink to={paths.documentation.getHref()} size="lg">
              Get Started
            </ButtonLink>
            <ButtonLink to={paths.whitepaper.getHref()} size="lg" variant="inverse">
              Read Whitepaper
            </ButtonLink>
          </div>
          {/* data-snippet: a test runs every shell snippet of the site against a fresh server, as pasted. */}
          <pre className={styles.snippet} aria-label="Example search request" data-snippet="shell">
            <code>
              {`curl -s -X POST localhost:8081/api/v1/search/hybrid \\
  -H "Authorization: Bearer $TOKEN" -H 'content-type: application/json' \\
  -d '{"query": "boundary layer transition", "alpha": 0.5}'`}
            </code>
          </pre>
        </div>
      </section>

      <section className={styles.section} aria-labelledby="features-title">
        <h2 id="features-title" className={styles.sectionTitle} data-animate>
          One engine for every kind of search
        </h2>
        <div className={styles.features}>
          {features.map((feature, index) => (
            <article
              key={feature.title}
              className={`${card.card} ${styles.card}`}
              data-animate
              data-animate-delay={cardDelay(index)}
            >
              <svg className={styles.icon} viewBox="0 0 24 24" width="40" height="40" aria-hidden="true">
                <path
                  d={feature.icon}
                  fill="none"
                  stroke="currentColor"
                  strokeWidth="2"
                  strokeLinecap="round"
                  strokeLinejoin="round"
                />
              </svg>
              <h3>{feature.title}</h3>
              <p>{feature.text}</p>
            </article>
          ))}
        </div>
      </section>

      <section className={`${styles.section} ${styles.metricsSection}`} aria-labelledby="metrics-title">
        <h2 id="metrics-title" className={styles.sectionTitle} data-animate>
          Performance
        </h2>
        <p className={styles.note} data-animate>
          These figures are currently under testing and optimization.
        </p>
        <div className={styles.metrics}>
          {metrics.map((metric, index) => (
            <div key={metric.label} className={styles.metric} data-animate data-animate-delay={cardDelay(index)}>
              <span className={styles.metricValue}>{metric.value}</span>
              <span className={styles.metricLabel}>{metric.label}</span>
            </div>
          ))}
        </div>
        <div className={styles.center} data-animate>
          <ButtonLink to={paths.whitepaper.getHref()} variant="secondary">
            View Whitepaper
          </ButtonLink>
        </div>
      </section>

      <section className={styles.cta} aria-labelledby="cta-title">
        <div data-animate>
          <h2 id="cta-title">Ready to Get Started?</h2>
          <p>Join the beta program and experience the future of vector databases</p>
          <ButtonLink to={paths.documentation.getHref()} size="lg">
            Read Documentation
          </ButtonLink>
        </div>
      </section>
    </div>
  );
}
