import type { PlaygroundField } from '@godb/contract';
import styles from './playground.module.css';

export interface EndpointFormProps {
  readonly fields: readonly PlaygroundField[];
  readonly values: Readonly<Record<string, string>>;
  readonly onChange: (name: string, value: string) => void;
  /** A file chosen (or cleared) in a file field, by the field's name. */
  readonly onFile: (name: string, file: File | null) => void;
}

/**
 * The hint shown in an empty control: the catalogue's placeholder, else the default the server applies, else
 * what the field is (every field shows one, issue #20).
 */
export function placeholderOf(field: PlaygroundField): string {
  if (field.placeholder) return field.placeholder;
  if (field.default !== undefined) return `${String(field.default)} (default)`;
  if (field.description) return field.description;
  const kind = field.valueType === 'integer' || field.valueType === 'number' ? 'a number' : 'text';
  return field.required ? `${field.label}: ${kind}` : `${field.label}: ${kind} (optional)`;
}

/** One control per field: text, number, textarea, select or file, with its placeholder and required flag. */
export function EndpointForm({ fields, values, onChange, onFile }: EndpointFormProps) {
  return (
    <div className={styles.fields}>
      {fields.map((field) => {
        const id = `field-${field.name}`;
        const value = values[field.name] ?? '';
        const common = {
          id,
          name: field.name,
          required: field.required,
          'aria-describedby': field.description ? `${id}-hint` : undefined,
        };
        let control;
        if (field.kind === 'file') {
          control = (
            <input
              {...common}
              type="file"
              accept={field.accept ?? undefined}
              required={false}
              onChange={(e) => onFile(field.name, e.target.files?.[0] ?? null)}
            />
          );
        } else if (field.kind === 'select') {
          control = (
            <select {...common} value={value} onChange={(e) => onChange(field.name, e.target.value)}>
              {/* The empty choice is shown whenever it is the value, so the select never displays an option it does not send. */}
              {(!field.required || !field.options?.includes(value)) && (
                <option value="">{field.required ? 'Choose…' : '(not set)'}</option>
              )}
              {(field.options ?? []).map((o) => (
                <option key={o} value={o}>
                  {o}
                </option>
              ))}
            </select>
          );
        } else if (field.kind === 'textarea') {
          control = (
            <textarea
              {...common}
              rows={field.in === 'raw-body' ? 8 : 3}
              placeholder={placeholderOf(field)}
              value={value}
              onChange={(e) => onChange(field.name, e.target.value)}
            />
          );
        } else {
          control = (
            <input
              {...common}
              type={field.kind === 'number' ? 'number' : 'text'}
              step={field.valueType === 'integer' ? 1 : 'any'}
              placeholder={placeholderOf(field)}
              value={value}
              onChange={(e) => onChange(field.name, e.target.value)}
            />
          );
        }
        return (
          <div
            key={field.name}
            className={
              field.kind === 'textarea' || field.kind === 'file' ? `${styles.field} ${styles.wide}` : styles.field
            }
          >
            <label htmlFor={id}>
              {field.label}
              {field.required && (
                <span className={styles.required} aria-hidden="true">
                  {' '}
                  *
                </span>
              )}
              <span className={styles.where}>
                {field.in === 'path'
                  ? 'path'
                  : field.in === 'query'
                    ? 'query'
                    : field.in === 'client'
                      ? 'file'
                      : 'body'}
              </span>
            </label>
            {control}
            {field.description && (
              <p id={`${id}-hint`} className={styles.hint}>
                {field.description}
              </p>
            )}
          </div>
        );
      })}
    </div>
  );
}
