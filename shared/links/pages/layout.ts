import type { Words } from '../i18n/words.js';
import { brandBanner, brandFooter, brandHead, contentSecurityPolicy, cspHash, type PageBrand } from './brand.js';
import { constant, type Html, html, toText } from './html.js';

/*
 * The frame of every page a link opens: one self-contained document (no font, script, image or
 * style sheet from anywhere), readable at 390 px, with visible focus and text that keeps a
 * contrast of at least 7:1 (links and buttons 6:1), and the headers of docs/api.md, Pages.
 */

// No quotes, `<`, `>` or `&`: the sheet is a constant of the code, placed as it is.
const STYLE = constant`:root{color-scheme:light;font-family:system-ui,-apple-system,Segoe UI,Roboto,Helvetica,Arial,sans-serif;line-height:1.5;color:#1b1b1b;background:#fff}
body{margin:0}
main{max-width:44rem;margin:0 auto;padding:1.5rem 1rem 3rem;overflow-wrap:break-word}
h1{font-size:1.6rem;line-height:1.25;margin:0 0 1rem}
h2{font-size:1.25rem;line-height:1.3;margin:2rem 0 .5rem}
p{margin:.5rem 0 1rem}
a{color:#0842a0}
fieldset{border:1px solid #747775;border-radius:.5rem;margin:0 0 1rem;padding:.5rem 1rem 1rem;min-width:0}
legend{font-weight:600;padding:0 .25rem}
.row{display:flex;flex-wrap:wrap;align-items:center;gap:.25rem 1rem;margin:.5rem 0 0}
.row>label,.row .name{flex:1 1 7rem;font-weight:500}
.row select,.row .fixed,.row input{flex:999 1 15rem;max-width:100%}
select,input,button{font:inherit;font-size:1rem}
select,input[type=text],input[type=time]{min-height:2.75rem;padding:.25rem .5rem;border:1px solid #5e5e5e;border-radius:.375rem;background:#fff;color:#1b1b1b;box-sizing:border-box}
input[type=text]{width:100%}
.choice{display:flex;gap:.5rem;align-items:flex-start;margin:.5rem 0}
.choice input{width:1.25rem;height:1.25rem;margin:.2rem 0 0;flex:none}
.days{display:flex;flex-wrap:wrap;gap:.25rem 1rem;border:0;padding:0;margin:.5rem 0 0}
.days legend{padding:0;font-weight:500}
.days label{display:inline-flex;gap:.35rem;align-items:center;min-height:2.75rem}
button{font-weight:600;color:#fff;background:#0842a0;border:0;border-radius:.5rem;padding:.75rem 1.5rem;min-height:2.75rem;cursor:pointer}
:focus-visible{outline:3px solid #1b1b1b;outline-offset:2px}
.note{color:#3c3c3c;font-size:.95rem;margin:.25rem 0 0}
.fixed{padding:.5rem 0}
.status{border-left:.3rem solid #0842a0;padding:.5rem 1rem;background:#eef2fb}
.hint{font-size:.95rem;color:#3c3c3c}`;

const STYLE_HASH = cspHash(toText(STYLE));

/** The headers of every answer of the pages, whatever it is. */
export const PAGE_HEADERS: Readonly<Record<string, string>> = {
  'content-type': 'text/html; charset=utf-8',
  'content-security-policy': contentSecurityPolicy({ styleHash: STYLE_HASH }),
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'cache-control': 'no-store',
};

export interface PageOptions {
  /** The origins that may frame the page (the preference page's, from the branding); none: no framing. */
  frameAncestors?: readonly string[] | undefined;
  /** The hash of the page's one script. */
  scriptHash?: string | undefined;
}

/**
 * The headers of a page of an organization, over PAGE_HEADERS: its CSP, which allows its brand's
 * sheets and logo, its script and its framing. Without any of them, none: the pages' own.
 */
export const pageHeaders = (
  brand: PageBrand | undefined,
  options: PageOptions = {},
): Readonly<Record<string, string>> | undefined =>
  brand || options.frameAncestors?.length || options.scriptHash
    ? { 'content-security-policy': contentSecurityPolicy({ styleHash: STYLE_HASH, brand, ...options }) }
    : undefined;

/**
 * A whole page in the words' language and direction: its title is its first heading too. A page
 * of a branded organization carries its name in the title and above the heading, its logo and
 * colour, its support and privacy links at the foot, and `extra` at the end of the body (the
 * preference page's script).
 */
export const page = (words: Words, title: string, body: Html, brand?: PageBrand, extra?: Html): string =>
  toText(html`<!doctype html>
<html lang="${words.locale}" dir="${words.dir}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex, nofollow">
<title>${brand ? `${title} · ${brand.displayName}` : title}</title>
<style>${STYLE}</style>${brand ? brandHead(brand) : ''}
</head>
<body>
<main>
${
  brand
    ? html`${brandBanner(brand)}
`
    : ''
}<h1>${title}</h1>
${body}
</main>
${brand ? brandFooter(words, brand) : ''}${extra ?? ''}</body>
</html>
`);
