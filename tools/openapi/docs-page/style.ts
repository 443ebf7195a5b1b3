/** The page's only style sheet, inline (its hash is in the page's Content-Security-Policy). */
export const STYLE = `
body{font:15px/1.5 system-ui,sans-serif;margin:0;color:#1d232b;display:flex}
nav{position:sticky;top:0;height:100vh;overflow:auto;width:280px;flex:none;background:#f4f6f8;padding:1rem;box-sizing:border-box;font-size:14px}
nav a{display:block;color:#1d4f91;text-decoration:none;padding:3px 0}
nav a .path{display:block;color:#5b6570;font-size:12px}
main{padding:1rem 2rem;max-width:1000px;min-width:0;flex:1}
code,pre{font:13px/1.4 ui-monospace,monospace}
code{overflow-wrap:anywhere}
pre{background:#f4f6f8;padding:.75rem;overflow:auto;border-radius:4px}
table{border-collapse:collapse;margin:.5rem 0;width:100%}
td,th{border:1px solid #d5dbe1;padding:4px 8px;text-align:left;vertical-align:top}
table.fields td:first-child{white-space:nowrap;width:1%}
@media (max-width:760px){
body{display:block}
nav{position:static;height:auto;width:auto}
main{padding:.5rem .75rem}
td,th{padding:3px 4px}
table.fields td:first-child{white-space:normal}
h1{overflow-wrap:anywhere}
}
.method{background:#1d7a46;color:#fff;padding:1px 8px;border-radius:4px;font-size:.8em}
.operation{border-top:2px solid #d5dbe1;margin-top:2rem}
.type{font-weight:600}.rules{color:#5b6570;font-size:.9em}.req{color:#b3261e;font-size:.8em}
.code{font-weight:700;width:1%}.c2{color:#1d7a46}.c4{color:#9a5b00}.c5{color:#b3261e}
details.example{margin:.4rem 0}details.example summary{cursor:pointer;color:#1d4f91}
`;
