import type { Locale } from '#shared/api/locales.js';
import { ar } from './ar.js';
import { de } from './de.js';
import { type Catalog, en } from './en.js';
import { es } from './es.js';
import { fr } from './fr.js';
import { ja } from './ja.js';
import { ptBR } from './pt-BR.js';

/** The catalog of each shipped language. */
export const CATALOGS: Readonly<Record<Locale, Catalog>> = { en, de, fr, es, 'pt-BR': ptBR, ja, ar };
