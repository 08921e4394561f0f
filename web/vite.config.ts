import react from '@vitejs/plugin-react';
import { cpSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { defineConfig, type Plugin } from 'vite';

/** pdf.js character maps and standard fonts, served by GoDB itself (nothing is fetched from a CDN). */
function pdfjsAssets(): Plugin {
  const root = dirname(createRequire(import.meta.url).resolve('pdfjs-dist/package.json'));
  return {
    name: 'godb-pdfjs-assets',
    apply: 'build',
    writeBundle(options) {
      const out = options.dir ?? 'dist';
      cpSync(join(root, 'cmaps'), join(out, 'pdfjs', 'cmaps'), { recursive: true });
      cpSync(join(root, 'standard_fonts'), join(out, 'pdfjs', 'standard_fonts'), { recursive: true });
    },
  };
}

// The contract is consumed from source (the "source" export condition), so the site and the server share one
// catalogue without a build step in between.
export default defineConfig({
  plugins: [react(), pdfjsAssets()],
  resolve: { conditions: ['source', 'module', 'browser', 'development|production'] },
  build: { target: 'es2022', sourcemap: true, chunkSizeWarningLimit: 600 },
  server: { port: 5173, proxy: { '/api': 'http://localhost:8081', '/auth': 'http://localhost:8081' } },
});
