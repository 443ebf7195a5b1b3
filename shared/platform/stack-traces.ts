import { readFileSync } from 'node:fs';
import { SourceMap, type SourceMapPayload } from 'node:module';
import { fileURLToPath } from 'node:url';

/*
 * Stack traces of a Lambda bundle that point at the TypeScript sources, without Node's
 * --enable-source-maps. That flag reads and parses the bundle's map at every cold start, 12 to 14 ms
 * of CPU here (an A/B in one run of `npm run bench -- --only=bundles`), for the few errors whose stack is
 * ever read. Here the map is read when the first stack is formatted (V8 formats a stack when its
 * `stack` is first read: a logged error), once per process.
 *
 * Installed only in a bundle (this module's own file is then the bundle, `.mjs`) and when Node
 * maps nothing itself (no --enable-source-maps): tsx and Jest, which run the sources, keep their
 * own stack traces. Node's own formatting is kept; only the positions change.
 */

type Mapping = { originalSource?: string; originalLine?: number; originalColumn?: number };

/** Each file's map, read on first use; null when it has none. */
const maps = new Map<string, SourceMap | null>();

const mapOf = (file: string): SourceMap | null => {
  let map = maps.get(file);
  if (map === undefined) {
    try {
      const path = file.startsWith('file:') ? fileURLToPath(file) : file;
      map = new SourceMap(JSON.parse(readFileSync(`${path}.map`, 'utf8')) as SourceMapPayload);
    } catch (e) {
      process.stderr.write(`MAPFAIL ${String(e)}\n`);
      map = null;
    }
    maps.set(file, map);
  }
  return map;
};

/** A frame's text with its bundle position replaced by the source's (as --enable-source-maps writes it). */
const mapFrame = (text: string, site: NodeJS.CallSite): string => {
  const file = site.getFileName();
  const line = site.getLineNumber();
  const column = site.getColumnNumber();
  if (!file?.endsWith('.mjs') || typeof line !== 'number' || typeof column !== 'number') return text;
  const entry = mapOf(file)?.findEntry(line - 1, column - 1) as Mapping | undefined;
  // Dependency code maps to nothing (infra/bundling/drop-dependency-mappings.mjs): left as it is.
  if (!entry?.originalSource || entry.originalLine === undefined || entry.originalColumn === undefined) return text;
  const source = new URL(entry.originalSource, file).href;
  return text.replace(`${file}:${line}:${column}`, `${source}:${entry.originalLine + 1}:${entry.originalColumn + 1}`);
};

type Format = (error: Error, sites: NodeJS.CallSite[]) => unknown;

/**
 * The stack as `format` (Node's own) writes it, each frame's position mapped: its last lines are
 * the frames, one per call site, after a header that may span lines. Never throws.
 */
export const mappedStack =
  (format: Format): Format =>
  (error, sites) => {
    const text = String(format(error, sites));
    try {
      const lines = text.split('\n');
      const first = lines.length - sites.length;
      if (first < 1) return text;
      return lines
        .map((line, i) => (i < first ? line : mapFrame(line, sites[i - first] as NodeJS.CallSite)))
        .join('\n');
    } catch {
      return text;
    }
  };

// Node's own formatting is Error.prepareStackTrace (V8's when it has none).
const nodeFormat: Format =
  Error.prepareStackTrace ??
  ((error, sites) => [Error.prototype.toString.call(error), ...sites.map((site) => `    at ${site}`)].join('\n'));

if (import.meta.url.endsWith('.mjs') && !process.sourceMapsEnabled) {
  Error.prepareStackTrace = mappedStack(nodeFormat);
}
