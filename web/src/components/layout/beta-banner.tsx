import styles from './beta-banner.module.css';

/** Shown at the top of every public page (site-spec §1). */
export function BetaBanner() {
  return (
    <div className={styles.banner} role="note">
      <span className={styles.badge}>Beta</span>
      <span>Beta Release - Try out the future of vector databases</span>
    </div>
  );
}
