import { useId, type InputHTMLAttributes, type ReactNode, type TextareaHTMLAttributes } from 'react';
import styles from './form-field.module.css';

interface FieldProps {
  readonly label: string;
  readonly hint?: ReactNode;
  readonly required?: boolean | undefined;
}

/** Label (with the required marker), control and hint, wired together by id. */
function Field({ label, hint, required, children }: FieldProps & { children: (id: string) => ReactNode }) {
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
      {children(id)}
      {hint && <p className={styles.hint}>{hint}</p>}
    </div>
  );
}

export function TextField({ label, hint, required, ...input }: FieldProps & InputHTMLAttributes<HTMLInputElement>) {
  return (
    <Field label={label} hint={hint} required={required}>
      {(id) => <input id={id} required={required} className={styles.control} {...input} />}
    </Field>
  );
}

export function TextAreaField({
  label,
  hint,
  required,
  ...input
}: FieldProps & TextareaHTMLAttributes<HTMLTextAreaElement>) {
  return (
    <Field label={label} hint={hint} required={required}>
      {(id) => <textarea id={id} required={required} className={styles.control} {...input} />}
    </Field>
  );
}

export function Alert({ kind, children }: { kind: 'success' | 'error'; children: ReactNode }) {
  return (
    <p role={kind === 'error' ? 'alert' : 'status'} className={kind === 'error' ? styles.error : styles.success}>
      {children}
    </p>
  );
}
