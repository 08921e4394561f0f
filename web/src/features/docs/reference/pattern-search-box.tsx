import { useRef, type ReactNode } from 'react';
import styles from './reference.module.css';

interface PatternSearchBoxProps {
  readonly id: string;
  readonly label: string;
  readonly placeholder: string;
  readonly query: string;
  onChange(query: string): void;
  onClear(): void;
  /** What follows the box inside the search landmark (counts, result lists). */
  readonly children?: ReactNode;
}

/** The regular-expression search box of the REST and gRPC references. */
export function PatternSearchBox({
  id,
  label,
  placeholder,
  query,
  onChange,
  onClear,
  children,
}: PatternSearchBoxProps) {
  const input = useRef<HTMLInputElement>(null);
  return (
    <div className={styles.search} role="search">
      <label htmlFor={id}>{label}</label>
      <div className={styles.searchRow}>
        <input
          ref={input}
          id={id}
          type="search"
          placeholder={placeholder}
          value={query}
          onChange={(e) => onChange(e.target.value)}
        />
        {/* Clearing keeps the reader in the box to type the next search (the button disables itself). */}
        <button
          type="button"
          onClick={() => {
            onClear();
            input.current?.focus();
          }}
          disabled={query === ''}
        >
          Clear
        </button>
      </div>
      {children}
    </div>
  );
}
