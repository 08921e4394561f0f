import { Link } from 'react-router';
import { siteConfig } from '../../config/env';
import { paths } from '../../config/paths';
import styles from './site-footer.module.css';

/** Footer with the Resources, Community and Legal groups and the 2025 copyright (site-spec §2). */
export function SiteFooter() {
  return (
    <footer className={styles.footer}>
      <div className={styles.inner}>
        <div className={styles.brand}>
          <strong>GoDB</strong>
          <p>
            The Unified Intelligent Data Platform. A vector database and search engine in beta, for evaluation and
            testing.
          </p>
        </div>
        <nav className={styles.group} aria-labelledby="footer-resources">
          <h2 id="footer-resources">Resources</h2>
          <Link to={paths.documentation.getHref()}>Documentation</Link>
          <Link to={paths.whitepaper.getHref()}>Whitepaper</Link>
          <Link to={paths.playground.getHref()}>API Playground</Link>
          <Link to={paths.contact.getHref()}>Contact Us</Link>
        </nav>
        <nav className={styles.group} aria-labelledby="footer-community">
          <h2 id="footer-community">Community</h2>
          {/* The repository and social links exist only when configured at build time (no dead links). */}
          {siteConfig.repositoryUrl && (
            <a href={siteConfig.repositoryUrl} target="_blank" rel="noopener noreferrer">
              GitHub
            </a>
          )}
          {siteConfig.socialLinks.map((link) => (
            <a key={link.href} href={link.href} target="_blank" rel="noopener noreferrer">
              {link.label}
            </a>
          ))}
          <Link to={paths.contact.getHref()}>Join the beta program</Link>
        </nav>
        <nav className={styles.group} aria-labelledby="footer-legal">
          <h2 id="footer-legal">Legal</h2>
          <Link to={paths.privacyPolicy.getHref()}>Privacy Policy</Link>
          <Link to={paths.termsOfService.getHref()}>Terms of Service</Link>
        </nav>
      </div>
      <p className={styles.copyright}>© {siteConfig.copyrightYear} GoDB. All rights reserved.</p>
    </footer>
  );
}
