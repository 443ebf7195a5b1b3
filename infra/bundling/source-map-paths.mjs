// Rewrites the `sources` of a bundle's source map to paths relative to the project root.
// esbuild writes them relative to the output folder, which CDK places inside the cloud
// assembly: with `cdk synth -o elsewhere` every map, and so every asset hash, would change.
// Plain JavaScript: it runs as a bundling command, under whichever Node runs the CDK app.
// Usage: node source-map-paths.mjs <map file> <project root>
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, relative, resolve, sep } from 'node:path';

const [mapFile, projectRoot] = process.argv.slice(2);
if (!mapFile || !projectRoot) {
  console.error('usage: source-map-paths.mjs <map file> <project root>');
  process.exit(2);
}
const map = JSON.parse(readFileSync(mapFile, 'utf8'));
const outputDir = dirname(resolve(mapFile));
map.sources = map.sources.map((source) =>
  relative(resolve(projectRoot), resolve(outputDir, source)).split(sep).join('/'),
);
writeFileSync(mapFile, JSON.stringify(map));
