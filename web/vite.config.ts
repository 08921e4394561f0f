import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

// The contract is consumed from source (the "source" export condition), so the site and the server share one
// catalogue without a build step in between.
export default defineConfig({
  plugins: [react()],
  resolve: { conditions: ['source', 'module', 'browser', 'development|production'] },
  build: { target: 'es2022', sourcemap: true, chunkSizeWarningLimit: 600 },
  server: { port: 5173, proxy: { '/api': 'http://localhost:8081', '/auth': 'http://localhost:8081' } },
});
