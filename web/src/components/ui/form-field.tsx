import { useId, type InputHTMLAttributes, type ReactNode, type TextareaHTMLAttributes } from 'react';
import styles from './form-field.module.css';

interface FieldProps {
  readonly label: string;
  readonly hint?: ReactNode;
  readonly required?: boolean;
}

export function TextField({ label, hint, required, ...input }: FieldProps & InputHTMLAttributes<HTMLInputElement>) {
  const id = useId();
  return (
    <div className={styles.field}>
      <label htmlFor={id}>
        {label}
        {required && (
          <span className={styles.required} aria-hidden="true">
            {' '}
            *
          </span>
        )}
      </label>
      <input id={id} required={required} className={styles.control} {...input} />
      {hint && <p className={styles.hint}>{hint}</p>}
    </div>
  );
}

export function TextAreaField({
  label,
  hint,
  required,
  ...input
}: FieldProps & TextareaHTMLAttributes<HTMLTextAreaElement>) {
  const id = useId();
  return (
    <div className={styles.field}>
      <label htmlFor={id}>
        {label}
        {required && (
          <span className={styles.required} aria-hidden="true">
            {' '}
            *
          </span>
        )}
      </label>
      <textarea id={id} required={required} className={styles.control} {...input} />
      {hint && <p className={styles.hint}>{hint}</p>}
    </div>
  );
}

export function Alert({ kind, children }: { kind: 'success' | 'error'; children: ReactNode }) {
  return (
    <p role={kind === 'error' ? 'alert' : 'status'} className={kind === 'error' ? styles.error : styles.success}>
      {children}
    </p>
  );
}
