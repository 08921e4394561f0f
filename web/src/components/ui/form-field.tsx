import {
  useId,
  type InputHTMLAttributes,
  type ReactNode,
  type SelectHTMLAttributes,
  type TextareaHTMLAttributes,
} from 'react';
import styles from './form-field.module.css';

interface FieldProps {
  readonly label: string;
  readonly hint?: ReactNode;
  readonly required?: boolean | undefined;
  /**
   * Marks the field as required (asterisk, aria-required) without the browser's own check, for forms whose
   * specification names its own message for a missing value (site-spec §5: 'Name and Company are required…').
   */
  readonly markRequired?: boolean | undefined;
  /** Why the value was refused, shown under the control and announced with it (aria-invalid, aria-describedby). */
  readonly problem?: string | undefined;
}

/** Label (with the required marker), control and hint, wired together by id. */
function Field({
  label,
  hint,
  required,
  markRequired,
  problem,
  children,
}: FieldProps & { children: (id: string, described: ProblemProps) => ReactNode }) {
  const id = useId();
  const problemId = `${id}-problem`;
  const described: ProblemProps = problem ? { 'aria-invalid': true, 'aria-describedby': problemId } : {};
  return (
    <div className={styles.field}>
      <label htmlFor={id}>
        {label}
        {(required || markRequired) && (
          <span className={styles.required} aria-hidden="true">
            {' '}
            *
          </span>
        )}
      </label>
      {children(id, described)}
      {problem && (
        <p id={problemId} className={styles.problem}>
          {problem}
        </p>
      )}
      {hint && <p className={styles.hint}>{hint}</p>}
    </div>
  );
}

type ProblemProps = { 'aria-invalid'?: true; 'aria-describedby'?: string };

export function TextField({
  label,
  hint,
  required,
  markRequired,
  problem,
  ...input
}: FieldProps & InputHTMLAttributes<HTMLInputElement>) {
  return (
    <Field label={label} hint={hint} required={required} markRequired={markRequired} problem={problem}>
      {(id, described) => (
        <input
          id={id}
          required={required}
          aria-required={markRequired ?? undefined}
          className={styles.control}
          {...described}
          {...input}
        />
      )}
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

export function SelectField({
  label,
  hint,
  required,
  children,
  ...select
}: FieldProps & SelectHTMLAttributes<HTMLSelectElement>) {
  return (
    <Field label={label} hint={hint} required={required}>
      {(id) => (
        <select id={id} required={required} className={styles.control} {...select}>
          {children}
        </select>
      )}
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
