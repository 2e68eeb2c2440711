import { Parser, Language } from 'web-tree-sitter';
const t0 = performance.now();
await Parser.init();
const lang = await Language.load('/work/main/node_modules/tree-sitter-bash/tree-sitter-bash.wasm');
const p = new Parser(); p.setLanguage(lang);
console.log('init ms', (performance.now()-t0).toFixed(0));
function dump(n, d=0){ console.log(' '.repeat(d*2)+n.type+(n.childCount? '' : ' '+JSON.stringify(n.text))+(n.isNamed?'':' (anon)')); for (const c of n.children) dump(c,d+1); }
for (const s of process.argv.slice(2)) { console.log('===', s); const tree = p.parse(s); dump(tree.rootNode); console.log('hasError', tree.rootNode.hasError); }
