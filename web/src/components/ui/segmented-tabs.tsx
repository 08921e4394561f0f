import styles from './segmented-tabs.module.css';

interface SegmentedTabsProps<T extends string> {
  /** The tab list's accessible name. */
  readonly label: string;
  readonly options: readonly { readonly value: T; readonly label: string }[];
  readonly value: T;
  readonly onChange: (value: T) => void;
  /** Tabs share the full width equally (a form's mode switch) instead of sizing to their labels. */
  readonly stretch?: boolean;
}

/** A segmented switch between a few views, exposed as an ARIA tab list. */
export function SegmentedTabs<T extends string>({ label, options, value, onChange, stretch }: SegmentedTabsProps<T>) {
  return (
    <div className={`${styles.tabs} ${stretch ? styles.stretch : ''}`} role="tablist" aria-label={label}>
      {options.map((option) => (
        <button
          key={option.value}
          type="button"
          role="tab"
          aria-selected={value === option.value}
          onClick={() => onChange(option.value)}
        >
          {option.label}
        </button>
      ))}
    </div>
  );
}
