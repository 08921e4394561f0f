/**
 * The reference search: the text is a regular expression (case-insensitive); when it is not a valid one, it is
 * matched as plain text instead of failing.
 *
 * @example matcher('(')('GET (x)') // true: "(" is not a valid expression, so it is a substring
 */
export function matcher(text: string): (candidate: string) => boolean {
  const trimmed = text.trim();
  if (trimmed === '') return () => true;
  try {
    const pattern = new RegExp(trimmed, 'i');
    return (candidate) => pattern.test(candidate);
  } catch {
    const needle = trimmed.toLowerCase();
    return (candidate) => candidate.toLowerCase().includes(needle);
  }
}
