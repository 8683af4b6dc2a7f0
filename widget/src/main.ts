import { readConfig, type WidgetConfig } from './config.ts';
import { isTurn, MAX_KEPT_TURNS, MAX_TURN_CHARS } from './history.ts';
import { streamTurn, undoChanges, type Change, type Turn, type WidgetEventHandler } from './stream.ts';
import { STYLES } from './styles.ts';

/** The shortcut that opens the assistant from anywhere on the page. */
const SHORTCUT = (event: KeyboardEvent) => event.altKey && event.shiftKey && event.code === 'KeyA';

function el<K extends keyof HTMLElementTagNameMap>(tag: K, props: Partial<HTMLElementTagNameMap[K]> & Record<string, unknown> = {}, ...children: (Node | string)[]) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(props)) {
    if (key.startsWith('aria') || key === 'role') node.setAttribute(key.replace(/^aria([A-Z])/, (_m, c: string) => `aria-${c.toLowerCase()}`), String(value));
    else (node as unknown as Record<string, unknown>)[key] = value;
  }
  node.append(...children);
  return node;
}

function mount(config: WidgetConfig) {
  const host = el('div', { id: 'service-widget' });
  document.body.append(host);
  const root = host.attachShadow({ mode: 'open' });
  const storageKey = `service-widget:${config.instanceId}:${config.agentSlug}:${config.itemId}`;
  const history: Turn[] = load(storageKey);
  const save = () => {
    if (history.length > MAX_KEPT_TURNS) history.splice(0, history.length - MAX_KEPT_TURNS);
    try {
      sessionStorage.setItem(storageKey, JSON.stringify(history));
    } catch {
      // Storage full or blocked: the chat goes on, it is just not kept across reloads.
    }
  };

  const launcher = el('button', { className: 'launch', type: 'button', ariaLabel: 'Open assistant (Alt+Shift+A)', ariaExpanded: 'false' }, 'Assistant');
  const log = el('div', { className: 'log', role: 'log', ariaLive: 'polite' });
  const input = el('textarea', { ariaLabel: 'Message the assistant', rows: 2, placeholder: 'Ask for a change…', maxLength: MAX_TURN_CHARS });
  const send = el('button', { className: 'send', type: 'submit' }, 'Send');
  const close = el('button', { className: 'close', type: 'button', ariaLabel: 'Close assistant' }, '×');
  const form = el('form', {}, input, send);
  const panel = el('div', { className: 'panel', role: 'dialog', ariaLabel: 'Assistant', ariaModal: 'true', hidden: true }, el('header', {}, 'Assistant', close), log, form);
  root.append(el('style', {}, STYLES), launcher, panel);

  const bubble = (role: Turn['role'], text: string) => {
    const node = el('div', { className: role }, text);
    log.append(node);
    log.scrollTop = log.scrollHeight;
    return node;
  };
  for (const turn of history) bubble(turn.role, turn.content);
  /** A failure the user must see; the panel stays usable. */
  const showError = (message: string) => {
    const node = bubble('assistant', message);
    node.classList.add('error');
    node.setAttribute('role', 'alert');
  };

  const open = () => {
    panel.hidden = false;
    launcher.setAttribute('aria-expanded', 'true');
    input.focus();
  };
  const shut = () => {
    panel.hidden = true;
    launcher.setAttribute('aria-expanded', 'false');
    launcher.focus();
  };
  launcher.addEventListener('click', () => (panel.hidden ? open() : shut()));
  close.addEventListener('click', shut);
  document.addEventListener('keydown', (event) => {
    if (SHORTCUT(event)) {
      event.preventDefault();
      open();
    }
  });
  // Esc closes; Tab stays inside the open panel.
  panel.addEventListener('keydown', (event) => {
    if (event.key === 'Escape') return shut();
    if (event.key !== 'Tab') return;
    const focusable = [...panel.querySelectorAll<HTMLElement>('button:not([disabled]),textarea')];
    const first = focusable[0]!;
    const last = focusable[focusable.length - 1]!;
    const active = root.activeElement;
    const wrapTo = event.shiftKey && active === first ? last : !event.shiftKey && active === last ? first : null;
    if (wrapTo) {
      event.preventDefault();
      wrapTo.focus();
    }
  });
  input.addEventListener('keydown', (event) => {
    if (event.key === 'Enter' && !event.shiftKey) {
      event.preventDefault();
      form.requestSubmit();
    }
  });

  let busy = false;
  /**
   * Runs one request: Send is disabled until it ends, and it always ends (done, error, a
   * rejected or a silent `work`) with Send enabled again; a failure is shown in the log.
   */
  const run = (work: (on: WidgetEventHandler) => Promise<void>, record: boolean, onFailure: () => void = () => {}) => {
    busy = true;
    send.disabled = true;
    const answer = bubble('assistant', '');
    let over = false;
    const finish = (failure?: string) => {
      if (over) return;
      over = true;
      if (failure !== undefined) {
        if (!answer.textContent) answer.remove();
        showError(failure);
        onFailure();
      }
      if (record && answer.textContent) {
        history.push({ role: 'assistant', content: answer.textContent });
        save();
      }
      busy = false;
      send.disabled = false;
    };
    const on: WidgetEventHandler = {
      text(content) {
        if (!over) answer.textContent += content;
      },
      changes(fields) {
        if (!over) log.append(diff(fields));
      },
      error(message) {
        finish(message || 'The assistant failed.');
      },
      done(fallback) {
        if (fallback && !answer.textContent) answer.textContent = 'No changes were made.';
        finish();
      },
    };
    let started: Promise<void>;
    try {
      started = work(on);
    } catch {
      started = Promise.reject(new Error('not started'));
    }
    started.then(
      () => finish('The assistant stopped without an answer.'),
      () => finish('The assistant failed.'),
    );
  };

  function diff(fields: Change[]): HTMLElement {
    const table = el('table', { ariaLabel: 'Changes' }, el('tr', {}, el('th', {}, 'Field'), el('th', {}, 'Before'), el('th', {}, 'After')));
    for (const change of fields) table.append(el('tr', {}, el('td', {}, change.field), el('td', {}, el('del', {}, change.before)), el('td', {}, el('ins', {}, change.after))));
    const undo = el('button', { className: 'undo', type: 'button' }, 'Undo');
    undo.addEventListener('click', () => {
      if (busy) return;
      undo.disabled = true;
      // A failed Undo may be tried again.
      run((on) => undoChanges(config, fields, on), false, () => (undo.disabled = false));
    });
    return el('div', { className: 'changes' }, table, undo);
  }

  form.addEventListener('submit', (event) => {
    event.preventDefault();
    const text = input.value.trim();
    if (!text || busy) return;
    if (text.length > MAX_TURN_CHARS) return showError(`Messages are limited to ${MAX_TURN_CHARS} characters.`);
    input.value = '';
    history.push({ role: 'user', content: text });
    save();
    bubble('user', text);
    // Only the recent turns the contract allows are sent (recentTurns), however long the chat.
    run((on) => streamTurn(config, history.slice(), on), true);
  });
}

/** The kept chat, or none when storage is empty, blocked or holds something else. */
function load(storageKey: string): Turn[] {
  try {
    const stored: unknown = JSON.parse(sessionStorage.getItem(storageKey) ?? '[]');
    return Array.isArray(stored) ? stored.filter(isTurn).slice(-MAX_KEPT_TURNS) : [];
  } catch {
    return [];
  }
}

const config = readConfig();
if (config) {
  if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', () => mount(config));
  else mount(config);
}
