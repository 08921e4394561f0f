/**
 * The one rule for e-mail addresses, shared by the server (JSON Schema `format: 'email'` is checked with it, and the
 * mail templates' addresses) and the website's forms, so an address the forms accept is one the server accepts.
 * A browser's `type="email"` accepts `walker@invalid` (no dot in the domain); this rule does not, so the forms check
 * it themselves and say why beside the field.
 */

const atom = "[a-z0-9!#$%&'*+/=?^_`{|}~-]+";
const label = '[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?';

/** A name of dot-separated atoms, one @, and a domain of at least two labels (RFC 5321 dot-atoms, no quoting). */
export const emailPattern = `^${atom}(?:\\.${atom})*@(?:${label}\\.)+${label}$`;
export const emailRegExp = new RegExp(emailPattern, 'i');

/** What the server says of an address the rule refuses, after the field's name. */
export const emailRuleMessage =
  'must be an e-mail address such as ada@example.com: a name, one @, and a domain with a dot';

/**
 * Why `value` is not an address the server accepts, as a sentence to show beside the field, or undefined when it is.
 *
 * @example emailProblem('walker@invalid') // 'The domain after the @ needs a dot, as in walker@invalid.com or …'
 */
export function emailProblem(value: string): string | undefined {
  const address = value.trim();
  if (emailRegExp.test(address) && address.length <= 254) return undefined;
  if (address === '') return 'Enter your e-mail address, such as ada@example.com.';
  const [name = '', domain = '', ...rest] = address.split('@');
  if (rest.length > 0 || name === '' || domain === '')
    return 'An e-mail address has a name, one @ and a domain, such as ada@example.com.';
  if (!domain.includes('.'))
    return `The domain after the @ needs a dot, as in ${name}@${domain}.com: this server cannot deliver to "${domain}".`;
  if (address.length > 254) return 'An e-mail address has at most 254 characters.';
  return 'This is not an e-mail address the server accepts: letters, digits and . _ + - in the name, and a domain such as example.com.';
}
