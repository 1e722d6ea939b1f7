// Vite build of the dashboard: Preact JSX through Oxc, served by the gateway under /app/, pages split by dynamic import.
import { defineConfig } from 'vite';

export default defineConfig({
  base: '/app/',
  oxc: { jsx: { runtime: 'automatic', importSource: 'preact' } },
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    target: 'es2022',
    // The bundle-size test reads the manifest to find what the first load fetches.
    manifest: true,
    sourcemap: false,
  },
});
