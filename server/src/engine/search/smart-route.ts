export type SmartRoute = 'text' | 'semantic' | 'geo' | 'hybrid';

const questionWords = /^(who|what|when|where|why|how|which|can|could|does|do|is|are|should|explain|describe)\b/i;

/**
 * The smart router: picks a search kind for a query and says why. An explicit mode wins; with auto_route off,
 * hybrid; geo when a point is given with no query; semantic for questions and long natural-language queries;
 * text for quoted phrases, wildcards and short keyword queries; hybrid otherwise.
 *
 * @example chooseRoute({ query: 'why does the boundary layer separate', mode: 'auto', autoRoute: true, hasPoint: false }).route // 'semantic'
 */
export function chooseRoute(input: {
  query: string;
  mode: 'auto' | 'text' | 'semantic' | 'geo';
  autoRoute: boolean;
  hasPoint: boolean;
}): { route: SmartRoute; reason: string } {
  const query = input.query.trim();
  if (input.mode !== 'auto') return { route: input.mode, reason: `mode ${input.mode} was requested` };
  if (!input.autoRoute)
    return { route: 'hybrid', reason: 'auto_route is off: hybrid search combines text and semantic ranking' };
  const words = query.split(/\s+/).filter(Boolean);
  if (input.hasPoint && words.length === 0) return { route: 'geo', reason: 'a point was given with no query text' };
  if (/^".+"$/.test(query)) return { route: 'text', reason: 'a quoted phrase asks for exact words' };
  if (/[*?]\S/.test(query) || /\S[*]/.test(query)) return { route: 'text', reason: 'wildcards ask for word patterns' };
  if (questionWords.test(query) || query.endsWith('?'))
    return { route: 'semantic', reason: 'a question is best matched by meaning' };
  if (words.length >= 6)
    return { route: 'semantic', reason: `a ${words.length}-word natural-language query is best matched by meaning` };
  if (words.length <= 2)
    return { route: 'text', reason: `a ${words.length}-word keyword query is best matched by exact words (BM25)` };
  return { route: 'hybrid', reason: `a ${words.length}-word query benefits from both exact words and meaning` };
}
