import styles from './method-badge.module.css';

/** An HTTP method as a coloured badge (GET green, POST blue, PUT amber, PATCH violet, DELETE red). */
export function MethodBadge({ method }: { method: string }) {
  return <span className={`${styles.badge} ${styles[method.toLowerCase()] ?? ''}`}>{method}</span>;
}
