// Process entry: converts the GloVe JSON (`node glove-convert-main.js <source> <target>`), run by
// glove-convert-process.ts. Exits 0 when the target is written; otherwise prints why on stderr and exits 1.
import { convertWinkJson } from './glove-convert.js';

const [source, target] = process.argv.slice(2);
try {
  if (!source || !target) throw new Error('usage: glove-convert-main <source.json> <target.bin>');
  convertWinkJson(source, target);
} catch (error) {
  process.stderr.write(error instanceof Error ? error.message : String(error));
  process.exitCode = 1;
}
