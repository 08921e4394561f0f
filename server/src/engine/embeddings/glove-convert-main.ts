// Process entry: converts the GloVe JSON (`node glove-convert-main.js <source> <target>`), run by
// glove-convert-process.ts. Exits 0 when the target is written; otherwise prints why on stderr and exits 1. Each
// phase it enters is one line on stdout, for the progress a request waiting for it is told.
import { convertWinkJson } from './glove-convert.js';

const [source, target] = process.argv.slice(2);
try {
  if (!source || !target) throw new Error('usage: glove-convert-main <source.json> <target.bin>');
  convertWinkJson(source, target, (phase) => process.stdout.write(`${phase}\n`));
} catch (error) {
  process.stderr.write(error instanceof Error ? error.message : String(error));
  process.exitCode = 1;
}
