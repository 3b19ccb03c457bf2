"""The style sheet and the script of the HTML report, inlined into the page (no network
fetch, no library): the page reads on a phone (wide tables scroll inside their own box),
prints on A4 (controls, buttons and the per-query table left out, tables not cut across
pages), shows a cue on a table wider than its box, and its per-query table (a fixed-height box,
its header sticky) sorts (click a header), filters (the text box) and opens each query's
rank-by-rank explanation (click a row). Its buttons save the runs × metrics table as LaTeX
(``latex`` in the data block) and each figure as PNG (its image) or SVG (``svg`` in the data block).

The script reads the JSON in ``<script id="rw-data" type="application/json">`` (see
:func:`rankwise.reporting.page.per_query_data`)."""

from __future__ import annotations

STYLE = """
*{box-sizing:border-box}
body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",sans-serif;color:#212529;margin:0 auto;
 padding:12px;max-width:1240px;overflow-wrap:anywhere}
h1{font-size:1.5em;margin:.3em 0}h2{font-size:1.2em;margin:1.4em 0 .4em;border-bottom:1px solid #dee2e6}
h3{font-size:1.05em}
.tbox{position:relative;max-width:100%;margin:.4em 0}
.scroll{overflow-x:auto;max-width:100%}
.tbox .hint{display:none;margin:0;font-size:12px;color:#1864ab;text-align:right}
.tbox.overflow .hint{display:block}
.tbox.overflow::after{content:"";position:absolute;top:1.4em;right:0;bottom:0;width:28px;pointer-events:none;
 background:linear-gradient(to right,rgba(255,255,255,0),rgba(33,37,41,.18))}
.tbox.overflow.at-end::after{display:none}
.pq .scroll{max-height:min(70vh,560px);overflow:auto;border-bottom:1px solid #ced4da}
.pq thead th{position:sticky;top:0;z-index:1;box-shadow:0 1px 0 #ced4da}
table{border-collapse:collapse;font-size:13px;margin:0}
td,th{border:1px solid #ced4da;padding:3px 6px;text-align:right;white-space:nowrap;overflow-wrap:normal}
th{background:#f1f3f5;white-space:normal;overflow-wrap:normal;vertical-align:bottom}.l{text-align:left}
.tip{text-decoration:underline dotted #868e96;text-underline-offset:2px;cursor:help}
th>span{display:inline-block;max-width:8em}
.legend{font-size:12px;color:#495057;margin:.3em 0 .8em;max-width:72em}
.print-only{display:none}
.dl{font-size:12px;white-space:nowrap}.dl button{font:inherit;font-size:11px;padding:0 6px;margin-left:4px;cursor:pointer;
 border:1px solid #adb5bd;border-radius:3px;background:#f8f9fa;color:#1864ab}
p.dl{margin:.2em 0 .8em;white-space:normal}p.dl button{margin-left:0;font-size:12px;padding:1px 8px}
.best{font-weight:700}sup{color:#1864ab;font-weight:600;margin-left:1px}
.win{color:#2b8a3e}.loss{color:#c92a2a}.muted{color:#6c757d}
.figs{display:grid;grid-template-columns:repeat(auto-fill,minmax(min(100%,520px),1fr));gap:12px}
figure{margin:0}figure img{width:100%;height:auto;display:block}figcaption{font-size:12px;color:#495057}
.controls{display:flex;flex-wrap:wrap;gap:8px;align-items:center;margin:.4em 0}
.controls input,.controls select{font:inherit;padding:2px 4px;max-width:100%}
#pq-table th{cursor:pointer;user-select:none}#pq-table tr.q{cursor:pointer}
#pq-table tr.q:hover,#pq-table tr.q.open{background:#e7f5ff}
#pq-table td.detail{text-align:left;white-space:normal;background:#f8f9fa}
.explain{display:flex;flex-wrap:wrap;gap:12px;align-items:flex-start}
.explain>div{min-width:0;max-width:100%}.explain h4{margin:.2em 0}
.prov td{white-space:normal;overflow-wrap:anywhere;text-align:left}.w{white-space:normal;word-break:break-all;min-width:14ch}
@media (max-width:600px){body{padding:6px}td,th{padding:2px 4px}}
@page{size:A4;margin:12mm}
@media print{.controls,.hint,.pq,#pq-note,.pq-intro,button,.dl,details{display:none!important}.print-only{display:block}
 .tbox::after{display:none!important}.scroll{overflow:visible}body{max-width:none;padding:0;font-size:11px}
 table{font-size:9.5px}td,th{padding:1px 3px}td{white-space:normal}.legend,figcaption{font-size:9.5px}figure,table,tr{break-inside:avoid}thead{display:table-header-group}
 .figs{display:grid;grid-template-columns:1fr 1fr;gap:6px}figure{margin:0 0 6px}h2,h3{break-after:avoid}
 a{color:inherit;text-decoration:none}.tip{text-decoration:none}}
"""

SCRIPT = r"""
(function(){
"use strict";
var D=JSON.parse(document.getElementById("rw-data").textContent);
var metric=document.getElementById("pq-metric"),filter=document.getElementById("pq-filter");
var table=document.getElementById("pq-table"),note=document.getElementById("pq-note");
var LIMIT=500,open={},sortCol=D.keys.length+D.runs.length,sortDir=1;
function esc(s){return String(s).replace(/[&<>"]/g,function(c){return{"&":"&amp;","<":"&lt;",">":"&gt;",'"':"&quot;"}[c];});}
function num(v,signed){if(v===null||v===undefined)return"";var s=v.toFixed(4);return signed&&v>0?"+"+s:s;}
function columns(){
  var m=metric.value,out=[];
  D.keys.forEach(function(k,i){out.push({label:k,text:true,get:function(r){return D.ids[r][i];}});});
  D.runs.forEach(function(run){var a=D.values[m][run];out.push({label:run,get:function(r){return a[r];}});});
  D.pairs.forEach(function(p){var a=D.values[m][p[0]],b=D.values[m][p[1]];
    out.push({label:"\u0394 "+p[0]+" \u2212 "+p[1],signed:true,get:function(r){
      return a[r]===null||b[r]===null?null:Math.round((a[r]-b[r])*1e12)/1e12;}});});
  return out;}
function explanation(r){
  var q=D.ids[r][D.keys.length-1],e=D.explained[q];
  if(!e)return '<p class="muted">No explanation embedded for query '+esc(q)+": "+esc(D.explained_note)+"</p>";
  var html='<div class="explain">';
  D.runs.forEach(function(run){var x=e[run];html+="<div><h4>"+esc(run)+"</h4>";
    if(!x){html+='<p class="muted">no ranking</p></div>';return;}
    if(x.error){html+='<p class="muted">'+esc(x.error)+"</p></div>";return;}
    html+='<div class="scroll"><table class="rank"><thead><tr>'+x.columns.map(function(c){return"<th>"+esc(c)+"</th>";}).join("")+
      "</tr></thead><tbody>"+x.rows.map(function(row){return"<tr>"+row.map(function(v,i){
        return'<td class="'+(i===1?"l":"")+'">'+esc(v)+"</td>";}).join("")+"</tr>";}).join("")+"</tbody></table></div>";
    if(x.note)html+='<p class="muted">'+esc(x.note)+"</p>";
    html+="</div>";});
  return html+"</div>";}
function render(){
  var cols=columns(),q=filter.value.trim().toLowerCase(),rows=[],r;
  for(r=0;r<D.ids.length;r++){if(!q||D.ids[r].join(" ").toLowerCase().indexOf(q)>=0)rows.push(r);}
  var get=cols[sortCol].get,text=cols[sortCol].text;
  rows.sort(function(x,y){var a=get(x),b=get(y);
    if(a===null&&b===null)return x-y;if(a===null)return 1;if(b===null)return-1;
    if(text){a=String(a);b=String(b);}return(a<b?-1:a>b?1:0)*sortDir||x-y;});
  var head="<tr>"+cols.map(function(c,i){var s=i===sortCol?(sortDir>0?"ascending":"descending"):"none";
    return'<th scope="col" tabindex="0" data-col="'+i+'" aria-sort="'+s+'" class="'+(c.text?"l":"")+'">'+esc(c.label)+
      (i===sortCol?(sortDir>0?" \u25b2":" \u25bc"):"")+"</th>";}).join("")+"</tr>";
  var body=rows.slice(0,LIMIT).map(function(r){
    var tr='<tr class="q'+(open[r]?" open":"")+'" data-row="'+r+'">'+cols.map(function(c){var v=c.get(r);
      var cls=c.text?"l":c.signed&&v>0?"win":c.signed&&v<0?"loss":"";
      return'<td class="'+cls+'">'+esc(c.text?v:num(v,c.signed))+"</td>";}).join("")+"</tr>";
    return open[r]?tr+'<tr class="d"><td class="detail" colspan="'+cols.length+'">'+explanation(r)+"</td></tr>":tr;}).join("");
  table.innerHTML="<thead>"+head+"</thead><tbody>"+body+"</tbody>";
  cue(table.closest(".tbox"));
  note.textContent=(rows.length>LIMIT?"showing the first "+LIMIT+" of ":"")+rows.length+" of "+D.ids.length+" queries"+
    (q?" matching \u201c"+filter.value.trim()+"\u201d":"")+"; click a header to sort, a row to open its explanation"+
    (rows.length>20?"; the table scrolls, its header stays.":".");}
table.addEventListener("click",function(ev){
  var th=ev.target.closest("th[data-col]");
  if(th){var c=+th.getAttribute("data-col");if(c===sortCol)sortDir=-sortDir;else{sortCol=c;sortDir=1;}render();return;}
  var tr=ev.target.closest("tr.q");if(tr){var r=+tr.getAttribute("data-row");open[r]=!open[r];render();}});
table.addEventListener("keydown",function(ev){if(ev.key==="Enter"&&ev.target.matches("th[data-col]"))ev.target.click();});
metric.addEventListener("change",render);filter.addEventListener("input",render);
render();
function cue(box){var s=box.querySelector(".scroll");if(!s)return;
  var over=s.scrollWidth>s.clientWidth+1;box.classList.toggle("overflow",over);
  box.classList.toggle("at-end",over&&s.scrollLeft+s.clientWidth>=s.scrollWidth-1);}
function cues(){Array.prototype.forEach.call(document.querySelectorAll(".tbox"),cue);}
Array.prototype.forEach.call(document.querySelectorAll(".tbox"),function(box){
  var s=box.querySelector(".scroll");if(s)s.addEventListener("scroll",function(){cue(box);});});
window.addEventListener("resize",cues);cues();
function save(name,href){var a=document.createElement("a");a.href=href;a.download=name;
  document.body.appendChild(a);a.click();a.remove();}
function saveText(name,text,type){var url=URL.createObjectURL(new Blob([text],{type:type}));save(name,url);
  setTimeout(function(){URL.revokeObjectURL(url);},60000);}
var tex=document.getElementById("save-tex");
if(tex)tex.addEventListener("click",function(){
  saveText("table.tex",D.latex,"application/x-tex");});
document.addEventListener("click",function(ev){
  var b=ev.target.closest("button[data-save]");if(!b)return;
  var fig=b.closest("figure"),stem=fig.getAttribute("data-stem");
  if(b.getAttribute("data-save")==="png")save(stem+".png",fig.querySelector("img").src);
  else saveText(stem+".svg",D.svg[stem],"image/svg+xml");});
})();
"""
