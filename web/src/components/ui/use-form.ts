import { useState } from 'react';

/**
 * Form state for a set of text fields: the values, an onChange handler per field, and a reset.
 *
 * @example const { form, bind, reset } = useForm({ name: '', email: '' }); <input {...bind('name')} />
 */
export function useForm<T extends Record<string, string>>(empty: T) {
  const [form, setForm] = useState(empty);
  const bind = (name: keyof T & string) => ({
    name,
    value: form[name],
    onChange: (e: { target: { value: string } }) => setForm((f) => ({ ...f, [name]: e.target.value })),
  });
  return { form, setForm, bind, reset: () => setForm(empty) };
}
