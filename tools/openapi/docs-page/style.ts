/**
 * The page's only style sheet, inline (its hash is in the page's Content-Security-Policy).
 *
 * Wide screens: a sticky sidebar with the search and the table of contents beside the content.
 * Narrow screens (760 px and less): the contents fold into a closed <details> above the content,
 * so that the first screen shows the title and the start of the text, and the tables of fields,
 * headers and responses stack their cells, so that a field name keeps its line and a JSON example
 * scrolls in its own box instead of widening the page. No text may break inside a word: code
 * wraps only at its <wbr> break points (after a slash, a comma or a colon, before a dot).
 */
export const STYLE = `
body{font:15px/1.5 system-ui,sans-serif;margin:0;color:#1d232b;background:#fff;display:flex}
[hidden]{display:none}
details summary{cursor:pointer;color:#1d4f91}
:focus-visible{outline:3px solid #1d4f91;outline-offset:2px}
.skip{position:absolute;left:-10000px;top:.5rem;background:#fff;padding:.5rem 1rem;z-index:1}
.skip:focus{left:.5rem}
nav{position:sticky;top:0;height:100vh;overflow:auto;width:280px;flex:none;background:#f4f6f8;padding:1rem;box-sizing:border-box;font-size:14px}
nav .service{font-weight:700;margin:0 0 .75rem}
nav ul,nav ol{list-style:none;margin:0;padding:0}
nav a{display:block;color:#1d4f91;text-decoration:none;padding:3px 0}
nav a:hover{text-decoration:underline}
nav a .path{display:block;color:#4f5964;font-size:12px}
nav a .kind{color:#4f5964;font-size:12px}
.toc summary{font-weight:600;padding:.25rem 0}
search{display:block;margin-bottom:.75rem}
search label{display:block;font-weight:600}
search input{box-sizing:border-box;width:100%;font:16px system-ui,sans-serif;padding:.3rem .5rem;border:1px solid #5b6570;border-radius:4px;background:#fff;color:#1d232b}
#search-status{margin:.25rem 0;color:#4f5964;font-size:13px}
#search-status:empty{margin:0}
@supports selector(::details-content){
@media (min-width:761px){
.toc summary{display:none}
.toc::details-content{content-visibility:visible;display:block}
}
}
main{padding:1rem 2rem;max-width:1000px;min-width:0;flex:1}
h1{margin:.5rem 0}
code,pre{font:13px/1.4 ui-monospace,monospace}
pre{background:#f4f6f8;padding:.75rem;overflow:auto;border-radius:4px}
.scroll{overflow-x:auto}
table{border-collapse:collapse;margin:.5rem 0;width:100%}
.scroll table{width:auto}
td,th{border:1px solid #d5dbe1;padding:4px 8px;text-align:left;vertical-align:top}
table.fields td:first-child{white-space:nowrap;width:1%}
.method{background:#1d7a46;color:#fff;padding:1px 8px;border-radius:4px;font-size:.8em}
.operation{border-top:2px solid #d5dbe1;margin-top:2rem}
.type{font-weight:600}.rules{color:#4f5964;font-size:.9em}.req{color:#b3261e;font-size:.8em}
.code{font-weight:700;width:1%}.c2{color:#1d7a46}.c4{color:#9a5b00}.c5{color:#b3261e}
details.example{margin:.4rem 0}
@media (max-width:760px){
body{display:block}
nav{position:static;height:auto;width:auto;padding:.5rem .75rem}
nav .service{display:none}
search{margin-bottom:.25rem}
main{padding:.25rem .75rem}
h1{font-size:1.6rem}
table.stack,table.stack>tbody,table.stack>tbody>tr,table.stack>tbody>tr>td{display:block;width:auto}
table.stack>tbody>tr{border-top:1px solid #d5dbe1;padding:.25rem 0}
table.stack>tbody>tr>td{border:none;padding:2px 0}
table.stack>tbody>tr>td+td{padding-left:.75rem}
}
`;
