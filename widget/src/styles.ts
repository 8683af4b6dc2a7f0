/** Themable through CSS variables on the host page: --service-widget-accent, -bg, -fg, -font. */
export const STYLES = `
:host{all:initial;--accent:var(--service-widget-accent,#2b59c3);--bg:var(--service-widget-bg,#fff);--fg:var(--service-widget-fg,#1b1b1f);font:14px/1.4 var(--service-widget-font,system-ui,sans-serif);color:var(--fg)}
button{font:inherit;cursor:pointer;border-radius:6px;border:1px solid var(--accent)}
.launch{position:fixed;right:20px;bottom:20px;z-index:2147483000;background:var(--accent);color:#fff;padding:10px 14px}
.panel{position:fixed;right:20px;bottom:70px;z-index:2147483000;width:min(380px,calc(100vw - 40px));max-height:70vh;display:flex;flex-direction:column;background:var(--bg);border:1px solid #ccd;border-radius:10px;box-shadow:0 8px 28px rgba(0,0,0,.2)}
.panel[hidden]{display:none}
header{display:flex;justify-content:space-between;align-items:center;padding:8px 12px;border-bottom:1px solid #eee;font-weight:600}
.close{border:0;background:none;font-size:18px;color:var(--fg)}
.log{flex:1;overflow:auto;padding:10px 12px;display:flex;flex-direction:column;gap:8px}
.user{align-self:flex-end;background:#eef2fb;padding:6px 10px;border-radius:8px;white-space:pre-wrap}
.assistant{white-space:pre-wrap}
.error{color:#b3261e}
table{border-collapse:collapse;width:100%;font-size:12px}
td,th{border:1px solid #eee;padding:4px;text-align:left;vertical-align:top}
del{color:#b3261e}ins{color:#1d6b34;text-decoration:none}
form{display:flex;gap:6px;padding:8px;border-top:1px solid #eee}
textarea{flex:1;font:inherit;resize:none;min-height:38px;border:1px solid #ccd;border-radius:6px;padding:6px}
.send,.undo{background:var(--accent);color:#fff;padding:6px 10px}
.undo[disabled]{opacity:.5;cursor:default}
.confirm{border:1px solid #e0b400;background:#fff8e1;border-radius:8px;padding:8px;display:flex;flex-wrap:wrap;gap:6px;align-items:center}
.confirm p{margin:0 0 4px;flex-basis:100%}
`;
