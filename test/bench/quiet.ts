// Imported first by run.ts: the handlers' logger reads its level when its module loads, and
// the bench's own output must not drown in their JSON lines.
process.env.POWERTOOLS_LOG_LEVEL = 'SILENT';
