// Leaves the bundled dependencies (node_modules) unmapped in a bundle's source map: their
// positions pointed at files that are not deployed anyway, and they made up nearly all of every
// map (about 700 KiB of each function's asset, read and decoded in full at the first stack trace
// a function formats: shared/platform/stack-traces.ts). Our own sources keep every mapping, so
// stack traces still point at the TypeScript.
// Plain JavaScript without dependencies: it runs as a bundling command, under whichever Node
// runs the CDK app. The map format (Source Map v3): `mappings` holds, per generated line
// (`;`), segments (`,`) of 1, 4 or 5 base64 VLQ numbers, each relative to the one before; a
// 1-number segment maps the code from its column on to nothing.
// Usage: node drop-dependency-mappings.mjs <map file>
import { readFileSync, writeFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';

const BASE64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
const DIGIT = new Map([...BASE64].map((char, index) => [char, index]));

/** One segment's numbers (still relative). */
const decodeSegment = (text) => {
  const values = [];
  let value = 0;
  let shift = 0;
  for (const char of text) {
    const digit = DIGIT.get(char);
    if (digit === undefined) throw new Error(`not a base64 VLQ digit: ${char}`);
    value += (digit & 31) * 2 ** shift;
    if (digit & 32) {
      shift += 5;
      continue;
    }
    values.push(value % 2 === 1 ? -(value - 1) / 2 : value / 2);
    value = 0;
    shift = 0;
  }
  return values;
};

const encodeValue = (number) => {
  let rest = number < 0 ? -number * 2 + 1 : number * 2;
  let text = '';
  do {
    let digit = rest % 32;
    rest = Math.floor(rest / 32);
    if (rest > 0) digit |= 32;
    text += BASE64[digit];
  } while (rest > 0);
  return text;
};

/** The map with every segment of a source under node_modules unmapped, and those sources (and unused names) dropped. */
export const dropDependencyMappings = (map) => {
  const keep = map.sources.map((source) => !source.split(/[\\/]/).includes('node_modules'));
  const newSource = [];
  const sources = [];
  map.sources.forEach((source, index) => {
    if (!keep[index]) return;
    newSource[index] = sources.length;
    sources.push(source);
  });
  const newName = new Map();
  const names = [];

  // Absolute values carried across segments (and, except the column, across lines).
  const read = { source: 0, line: 0, column: 0, name: 0 };
  const written = { source: 0, line: 0, column: 0, name: 0 };
  const lines = map.mappings.split(';').map((line) => {
    let generated = 0;
    let writtenGenerated = 0;
    let lastMapped = false;
    const out = [];
    for (const text of line.split(',')) {
      if (!text) continue;
      const [column, source, origLine, origColumn, name] = decodeSegment(text);
      generated += column;
      let mapped = false;
      let segment = [];
      if (source !== undefined) {
        read.source += source;
        read.line += origLine;
        read.column += origColumn;
        if (name !== undefined) read.name += name;
        if (keep[read.source]) {
          mapped = true;
          const fields = [
            newSource[read.source] - written.source,
            read.line - written.line,
            read.column - written.column,
          ];
          written.source = newSource[read.source];
          written.line = read.line;
          written.column = read.column;
          if (name !== undefined) {
            if (!newName.has(read.name)) {
              newName.set(read.name, names.length);
              names.push(map.names[read.name]);
            }
            fields.push(newName.get(read.name) - written.name);
            written.name = newName.get(read.name);
          }
          segment = fields;
        }
      }
      // An unmapped segment only matters right after a mapped one: it ends that mapping.
      if (!mapped && !lastMapped) continue;
      out.push([generated - writtenGenerated, ...segment].map(encodeValue).join(''));
      writtenGenerated = generated;
      lastMapped = mapped;
    }
    return out.join(',');
  });

  const result = { ...map, sources, names, mappings: lines.join(';') };
  if (Array.isArray(map.sourcesContent)) result.sourcesContent = map.sourcesContent.filter((_, index) => keep[index]);
  for (const key of ['ignoreList', 'x_google_ignoreList']) {
    if (Array.isArray(map[key])) result[key] = map[key].filter((index) => keep[index]).map((index) => newSource[index]);
  }
  return result;
};

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const [mapFile] = process.argv.slice(2);
  if (!mapFile) {
    console.error('usage: drop-dependency-mappings.mjs <map file>');
    process.exit(2);
  }
  writeFileSync(mapFile, JSON.stringify(dropDependencyMappings(JSON.parse(readFileSync(mapFile, 'utf8')))));
}
