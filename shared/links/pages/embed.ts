import { cspHash } from './brand.js';
import { constant, type Html, html, toText } from './html.js';

/*
 * The preference page inside an organization's app (docs/api.md, The preference page in an app):
 * only the branding's embedOrigins may frame it (frame-ancestors), and a small script, allowed by
 * its hash, tells the parent frame the page's height (as it changes) and that a save happened
 * (the page after a save shows its status). It posts to each allowed origin by name, so only a
 * parent of one of them receives anything. The page needs none of it: without script it is the
 * same form, and the app sizes its frame itself.
 */

/** The messages' types, as the parent reads them. */
export const EMBED_MESSAGES = {
  height: 'notification-preferences:height',
  saved: 'notification-preferences:saved',
} as const;

// A constant of the code, placed as it is: it reads the origins from its own element's data.
const SCRIPT = constant`(function(){var s=document.currentScript,o=(s&&s.getAttribute('data-origins')||'').split(' ').filter(Boolean),p=window.parent;if(p===window||!o.length)return;function send(m){o.forEach(function(t){try{p.postMessage(m,t)}catch(e){}})}var last=-1;function height(){var h=Math.ceil(document.body.getBoundingClientRect().height);if(h!==last){last=h;send({type:'notification-preferences:height',height:h})}}if(window.ResizeObserver)new ResizeObserver(height).observe(document.body);window.addEventListener('load',height);height();if(document.querySelector('.status[role=status]'))send({type:'notification-preferences:saved'})})();`;

export const EMBED_SCRIPT_HASH = cspHash(toText(SCRIPT));
/** The script's size in bytes (at most 2 KB: test/unit/link-page-embed.test.ts). */
export const EMBED_SCRIPT_BYTES = Buffer.byteLength(toText(SCRIPT));

/** The script element of a page that `origins` may frame. */
export const embedScript = (origins: readonly string[]): Html =>
  html`<script data-origins="${origins.join(' ')}">${SCRIPT}</script>
`;
