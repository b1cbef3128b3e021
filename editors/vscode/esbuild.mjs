// Bundles the extension and vscode-languageclient into dist/extension.js,
// so that the .vsix ships no node_modules.
import { build } from 'esbuild';

await build({
    entryPoints: ['src/extension.ts'],
    bundle: true,
    outfile: 'dist/extension.js',
    external: ['vscode'],
    format: 'cjs',
    platform: 'node',
    target: 'node20',
    sourcemap: true,
    minify: process.argv.includes('--minify'),
    logLevel: 'warning',
});
