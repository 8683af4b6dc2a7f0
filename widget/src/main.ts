import { isLivePost } from '@service/core/live-post';
import { readConfig, type WidgetConfig } from './config.ts';
import { isTurn, MAX_KEPT_TURNS, MAX_TURN_CHARS } from './history.ts';
import { fetchPlaceholder, streamTurn, undoChange, type Change, type Turn, type WidgetEventHandler } from './stream.ts';
import { STYLES } from './styles.ts';

/** Said before the first edit of a live post: CMS-B edits a post by making it a draft first. */
export const LIVE_WARNING = 'This post is live. Editing it will unpublish it until you publish again.';
/** Said before an Undo that publishes a post again (its edit had unpublished it). */
export const UNDO_PUBLISH_WARNING = 'Undoing this change publishes the post again: visitors see it at once.';

/** Where no item is open (the CMS-A front page) the chat answers but cannot edit. */
export const SITE_PLACEHOLDER = 'Ask a question. To change something, open it first.';

/**
 * What the panel keeps across reloads, in the order it was shown: the chat, and each diff with its
 * undo token (absent for an Undo's own diff, which is not undone from here) and whether it was
 * undone, so its Undo still works after a reload.
 */
type Entry = Turn | { role: 'changes'; fields: Change[]; token?: string; undone?: boolean };
const isChanges = (value: unknown): value is Extract<Entry, { role: 'changes' }> =>
  typeof value === 'object' &&
  value !== null &&
  (value as Entry).role === 'changes' &&
  Array.isArray((value as { fields?: unknown }).fields) &&
  ['undefined', 'string'].includes(typeof (value as { token?: unknown }).token);

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
  // `#site` cannot be an item id (CMS-A ids are letters, digits, _ and -; CMS-B ids are numbers).
  const storageKey = `service-widget:${config.instanceId}:${config.agentSlug}:${config.itemId ?? '#site'}`;
  const history: Entry[] = load(storageKey);
  // A live item asks once before it is edited; a diff that moves its status moves this too.
  let live = isLivePost(config.itemStatus);
  let liveConfirmed = false;
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
  const input = el('textarea', { ariaLabel: 'Message the assistant', rows: 2, placeholder: config.itemId === null ? SITE_PLACEHOLDER : 'Ask for a change…', maxLength: MAX_TURN_CHARS });
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
  for (const entry of history) {
    if (isChanges(entry)) log.append(diff(entry));
    else bubble(entry.role, entry.content);
  }
  /** A failure the user must see; the panel stays usable. */
  const showError = (message: string) => {
    const node = bubble('assistant', message);
    node.classList.add('error');
    node.setAttribute('role', 'alert');
  };

  let asked = false;
  const open = () => {
    // Once per page: the offline assistant's phrases, as the input's placeholder (a hint; failures are ignored).
    if (!asked && config.itemId !== null) {
      asked = true;
      void fetchPlaceholder(config).then((placeholder) => {
        if (placeholder) input.placeholder = placeholder;
      });
    }
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
    // The reply keeps its place in the kept chat: where its bubble is, before the diff its turn produces.
    const reply: Turn | null = record ? { role: 'assistant', content: '' } : null;
    if (reply) history.push(reply);
    let over = false;
    const finish = (failure?: string) => {
      if (over) return;
      over = true;
      if (failure !== undefined) {
        if (!answer.textContent) answer.remove();
        showError(failure);
        onFailure();
      }
      if (reply) {
        if (answer.textContent) reply.content = answer.textContent;
        else if (history.includes(reply)) history.splice(history.indexOf(reply), 1);
        save();
      }
      busy = false;
      send.disabled = false;
    };
    const on: WidgetEventHandler = {
      text(content) {
        if (!over) answer.textContent += content;
      },
      changes(fields, token) {
        if (over) return;
        const entry: Entry = { role: 'changes', fields, ...(token ? { token } : {}) };
        history.push(entry);
        save();
        log.append(diff(entry));
        const status = fields.find((change) => change.field === 'status');
        if (status) {
          live = isLivePost(status.after);
          liveConfirmed = false;
        }
        // For the CMS's own page: the editor shows what is stored now (the plugin's glue listens).
        if (config.itemId !== null) document.dispatchEvent(new CustomEvent('service-widget:changes', { detail: { itemId: config.itemId, fields } }));
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

  function diff(entry: Extract<Entry, { role: 'changes' }>): HTMLElement {
    const { fields, token } = entry;
    const table = el('table', { ariaLabel: 'Changes' }, el('tr', {}, el('th', {}, 'Field'), el('th', {}, 'Before'), el('th', {}, 'After')));
    for (const change of fields) table.append(el('tr', {}, el('td', {}, change.field), el('td', {}, el('del', {}, change.before)), el('td', {}, el('ins', {}, change.after))));
    // Without a token (an Undo's own diff) there is nothing to undo from here.
    if (!token) return el('div', { className: 'changes' }, table);
    const undo = el('button', { className: 'undo', type: 'button', disabled: entry.undone === true }, 'Undo');
    const go = (confirmStatusChange: boolean) => {
      undo.disabled = true;
      entry.undone = true;
      save();
      // A failed or refused Undo may be tried again; the service says why it refused.
      run((on) => undoChange(config, token, confirmStatusChange, on), false, () => {
        undo.disabled = false;
        entry.undone = false;
        save();
      });
    };
    undo.addEventListener('click', () => {
      if (busy) return;
      const status = fields.find((change) => change.field === 'status');
      if (!status) return go(false);
      // Undoing a status change changes the published status: the service wants the user's yes.
      const live = isLivePost(status.before);
      confirmBox(live ? 'Publish again?' : 'Change the status?', live ? UNDO_PUBLISH_WARNING : `Undoing this change sets the post's status back to "${status.before}".`, live ? 'Undo and publish' : 'Undo anyway', () => go(true));
    });
    return el('div', { className: 'changes' }, table, undo);
  }

  /** Asks before something changes what the site shows; `proceed` runs once it is confirmed. */
  const confirmBox = (label: string, text: string, yesLabel: string, proceed: () => void) => {
    busy = true;
    send.disabled = true;
    const yes = el('button', { className: 'send', type: 'button' }, yesLabel);
    const no = el('button', { className: 'undo', type: 'button' }, 'Cancel');
    const box = el('div', { className: 'confirm', role: 'alertdialog', ariaLabel: label }, el('p', {}, text), yes, no);
    log.append(box);
    log.scrollTop = log.scrollHeight;
    const settle = (confirmed: boolean) => {
      box.remove();
      busy = false;
      send.disabled = false;
      if (!confirmed) return input.focus();
      proceed();
    };
    yes.addEventListener('click', () => settle(true));
    no.addEventListener('click', () => settle(false));
    yes.focus();
  };

  /** Asks before the first edit of a live item; `proceed` runs once it is confirmed. */
  const confirmLive = (proceed: () => void) =>
    confirmBox('Edit a live post?', LIVE_WARNING, 'Edit anyway', () => {
      liveConfirmed = true;
      proceed();
    });

  form.addEventListener('submit', (event) => {
    event.preventDefault();
    const text = input.value.trim();
    if (!text || busy) return;
    if (text.length > MAX_TURN_CHARS) return showError(`Messages are limited to ${MAX_TURN_CHARS} characters.`);
    if (live && !liveConfirmed) return confirmLive(() => form.requestSubmit());
    input.value = '';
    history.push({ role: 'user', content: text });
    save();
    bubble('user', text);
    // Only the recent turns the contract allows are sent (recentTurns), however long the chat.
    run((on) => streamTurn(config, history.filter(isTurn), on, live && liveConfirmed), true);
  });
}

/** The kept chat and diffs, or none when storage is empty, blocked or holds something else. */
function load(storageKey: string): Entry[] {
  try {
    const stored: unknown = JSON.parse(sessionStorage.getItem(storageKey) ?? '[]');
    return Array.isArray(stored) ? stored.filter((entry): entry is Entry => isTurn(entry) || isChanges(entry)).slice(-MAX_KEPT_TURNS) : [];
  } catch {
    return [];
  }
}

const config = readConfig();
if (config) {
  if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', () => mount(config));
  else mount(config);
}
