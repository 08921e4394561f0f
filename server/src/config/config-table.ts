import type { TSchema } from '@sinclair/typebox';
import { ConfigSchema } from './env.js';

/** Each setting with its default and description, straight from the schema (README, deployment guide). */
export function configEntries(): { name: string; default: string; description: string }[] {
  return Object.entries(ConfigSchema.properties as Record<string, TSchema>).map(([name, schema]) => ({
    name,
    default: String(schema.default ?? ''),
    description: String(schema.description ?? ''),
  }));
}

/** The README's configuration table, as Markdown. */
export function configTable(): string {
  const rows = configEntries().map(
    (e) => `| \`${e.name}\` | ${e.default === '' ? '(empty)' : `\`${e.default}\``} | ${e.description} |`,
  );
  return ['| Variable | Default | Meaning |', '| --- | --- | --- |', ...rows].join('\n');
}
