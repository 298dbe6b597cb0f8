// The raftq web console: the cluster and the queues (#/), one queue (#/queues/NAME). It reads and
// acts through the admin API of the node that serves it (docs/OPERATIONS.md, "The console") and
// renders only through dom.js, which never parses text as HTML.
import { fill, formatAge, formatNumber, h, queueLink, svg } from './dom.js';

const refreshIntervalMs = 3_000;
/** How far back the counts chart of a queue page reaches (samples taken while the console is open). */
const historyWindowMs = 10 * 60_000;
const tokenStorageKey = 'raftq.adminToken';

const main = /** @type {HTMLElement} */ (document.getElementById('main'));

// ---- the admin API, with the bearer token ----------------------------------------------------

class ApiError extends Error {
  constructor(status, message) {
    super(message);
    this.status = status;
  }
}

let token = sessionStorage.getItem(tokenStorageKey) ?? '';
/** The one token prompt open at a time: every call refused meanwhile waits for the same answer. */
let tokenPrompt = null;

async function api(method, path, body) {
  for (;;) {
    const sent = token;
    const headers = { accept: 'application/json' };
    if (sent !== '') headers.authorization = `Bearer ${sent}`;
    if (body !== undefined) headers['content-type'] = 'application/json';
    const response = await fetch(path, {
      method,
      headers,
      cache: 'no-store',
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    if (response.status === 401) {
      // Another call may have been given a new token while this one was under way.
      if (token === sent) await askForToken(sent !== '');
      continue;
    }
    const json = await response.json().catch(() => ({}));
    if (!response.ok)
      throw new ApiError(
        response.status,
        typeof json.error === 'string' ? json.error : `${response.status} ${response.statusText}`,
      );
    return json;
  }
}

function askForToken(wasRefused) {
  if (tokenPrompt !== null) return tokenPrompt;
  const dialog = /** @type {HTMLDialogElement} */ (document.getElementById('token-dialog'));
  const form = /** @type {HTMLFormElement} */ (document.getElementById('token-form'));
  const input = /** @type {HTMLInputElement} */ (document.getElementById('token-input'));
  fill(
    /** @type {HTMLElement} */ (document.getElementById('token-error')),
    wasRefused ? 'The node refused that token.' : '',
  );
  input.value = '';
  tokenPrompt = new Promise((resolve) => {
    const onSubmit = (event) => {
      event.preventDefault();
      if (input.value.trim() === '') return;
      token = input.value.trim();
      input.value = '';
      sessionStorage.setItem(tokenStorageKey, token);
      form.removeEventListener('submit', onSubmit);
      tokenPrompt = null;
      dialog.close();
      showForgetToken();
      resolve(undefined);
    };
    form.addEventListener('submit', onSubmit);
  });
  dialog.showModal();
  input.focus();
  return tokenPrompt;
}

// Nothing works without the token: Escape does not dismiss the prompt, and should the browser close
// it anyway (Chromium does on a repeated Escape), it opens again.
const tokenDialog = /** @type {HTMLDialogElement} */ (document.getElementById('token-dialog'));
tokenDialog.addEventListener('cancel', (event) => event.preventDefault());
tokenDialog.addEventListener('close', () => {
  if (tokenPrompt === null) return;
  tokenDialog.showModal();
  document.getElementById('token-input')?.focus();
});

function showForgetToken() {
  const button = /** @type {HTMLButtonElement} */ (document.getElementById('forget-token'));
  button.hidden = token === '';
}

document.getElementById('forget-token')?.addEventListener('click', () => {
  sessionStorage.removeItem(tokenStorageKey);
  token = '';
  location.reload();
});

// ---- confirmation ----------------------------------------------------------------------------

/** A modal question; resolves true on the confirming button, false on Cancel or Escape. */
function confirmAction(text, confirmLabel) {
  const dialog = /** @type {HTMLDialogElement} */ (document.getElementById('confirm-dialog'));
  const form = /** @type {HTMLFormElement} */ (document.getElementById('confirm-form'));
  const cancel = /** @type {HTMLButtonElement} */ (document.getElementById('confirm-cancel'));
  fill(/** @type {HTMLElement} */ (document.getElementById('confirm-text')), text);
  fill(/** @type {HTMLElement} */ (document.getElementById('confirm-ok')), confirmLabel);
  return new Promise((resolve) => {
    const finish = (answer) => {
      form.removeEventListener('submit', onSubmit);
      cancel.removeEventListener('click', onCancel);
      dialog.removeEventListener('close', onClose);
      if (dialog.open) dialog.close();
      resolve(answer);
    };
    const onSubmit = (event) => {
      event.preventDefault();
      finish(true);
    };
    const onCancel = () => finish(false);
    const onClose = () => finish(false);
    form.addEventListener('submit', onSubmit);
    cancel.addEventListener('click', onCancel);
    dialog.addEventListener('close', onClose);
    dialog.showModal();
    cancel.focus(); // the safe answer is the default one
  });
}

// ---- views and their refresh -------------------------------------------------------------------

let viewGeneration = 0;
let refreshTimer = 0;

/** Shows a view and refreshes it every few seconds until the next navigation. */
function showView(view) {
  viewGeneration += 1;
  const generation = viewGeneration;
  clearTimeout(refreshTimer);
  const isCurrent = () => generation === viewGeneration;
  const tick = async () => {
    try {
      await view.refresh(isCurrent);
      if (isCurrent()) setRefreshState(`updated ${new Date().toLocaleTimeString('en-GB')}`);
    } catch (error) {
      if (isCurrent()) view.showError(error);
    }
    if (isCurrent()) refreshTimer = window.setTimeout(tick, refreshIntervalMs);
  };
  void tick();
}

function setRefreshState(text) {
  fill(/** @type {HTMLElement} */ (document.getElementById('refresh-state')), text);
}

function errorText(error) {
  return error instanceof Error ? error.message : String(error);
}

/** Counts per queue over the last minutes, sampled on each refresh while the console is open. */
const history = new Map();

function recordCounts(queue) {
  const now = Date.now();
  const samples = history.get(queue.name) ?? [];
  samples.push({ atMs: now, visible: queue.visible, inFlight: queue.inFlight, delayed: queue.delayed });
  while (samples.length > 0 && samples[0].atMs < now - historyWindowMs) samples.shift();
  history.set(queue.name, samples);
}

// ---- #/ : the cluster and the queues ------------------------------------------------------------

const queueColumns = [
  { key: 'name', label: 'Name', numeric: false },
  { key: 'type', label: 'Type', numeric: false },
  { key: 'visible', label: 'Visible', numeric: true },
  { key: 'inFlight', label: 'In flight', numeric: true },
  { key: 'delayed', label: 'Delayed', numeric: true },
  { key: 'oldestMessageAgeSeconds', label: 'Oldest message', numeric: true },
  { key: 'deadLetterTarget', label: 'Dead-letter queue', numeric: false },
];

/** Kept across refreshes and navigations, so coming back to the list keeps its order and filter. */
const queueListState = { sortKey: 'name', isDescending: false, filter: '' };

function overviewView() {
  const clusterError = h('p', { class: 'error', role: 'alert', id: 'cluster-error' });
  const clusterBody = h('tbody');
  const queuesError = h('p', { class: 'error', role: 'alert', id: 'queues-error' });
  const queuesBody = h('tbody');
  const queueCount = h('p', { id: 'queue-count', role: 'status' });
  const filter = h('input', {
    id: 'queue-filter',
    type: 'search',
    autocomplete: 'off',
    spellcheck: 'false',
    value: queueListState.filter,
  });
  const headerRow = h('tr');
  let queues = [];

  const renderQueues = () => {
    const needle = queueListState.filter.trim().toLowerCase();
    const shown = queues.filter((queue) => queue.name.toLowerCase().includes(needle));
    const column = queueColumns.find((c) => c.key === queueListState.sortKey) ?? queueColumns[0];
    shown.sort((a, b) => {
      const x = a[column.key] ?? (column.numeric ? -1 : '');
      const y = b[column.key] ?? (column.numeric ? -1 : '');
      const order = column.numeric ? x - y : String(x).localeCompare(String(y));
      return (queueListState.isDescending ? -order : order) || a.name.localeCompare(b.name);
    });
    fill(
      queuesBody,
      shown.map((queue) =>
        h(
          'tr',
          { 'data-queue': queue.name },
          h('th', { scope: 'row' }, queueLink(queue.name)),
          h('td', {}, queue.type),
          h('td', { class: 'number' }, formatNumber(queue.visible), queue.countsExact === false ? '+' : ''),
          h('td', { class: 'number' }, formatNumber(queue.inFlight)),
          h('td', { class: 'number' }, formatNumber(queue.delayed)),
          h('td', { class: 'number' }, formatAge(queue.oldestMessageAgeSeconds)),
          h('td', {}, queue.deadLetterTarget === null ? '-' : queueLink(queue.deadLetterTarget)),
        ),
      ),
      shown.length === 0
        ? h(
            'tr',
            {},
            h(
              'td',
              { colspan: queueColumns.length },
              queues.length === 0 ? 'No queues.' : 'No queue matches the filter.',
            ),
          )
        : null,
    );
    fill(
      queueCount,
      needle === ''
        ? `${queues.length} queue${queues.length === 1 ? '' : 's'}`
        : `${shown.length} of ${queues.length} queues`,
    );
    renderHeader();
  };

  const renderHeader = () => {
    fill(
      headerRow,
      queueColumns.map((column) => {
        const isSorted = column.key === queueListState.sortKey;
        const direction = isSorted ? (queueListState.isDescending ? 'descending' : 'ascending') : 'none';
        return h(
          'th',
          { scope: 'col', 'aria-sort': direction, class: column.numeric ? 'number' : '' },
          h(
            'button',
            {
              type: 'button',
              class: 'sort',
              'data-sort': column.key,
              on: {
                click: () => {
                  queueListState.isDescending = isSorted ? !queueListState.isDescending : false;
                  queueListState.sortKey = column.key;
                  renderQueues();
                  headerRow.querySelector(`[data-sort="${column.key}"]`)?.focus();
                },
              },
            },
            column.label,
            h(
              'span',
              { 'aria-hidden': 'true', class: 'arrow' },
              isSorted ? (queueListState.isDescending ? ' ▼' : ' ▲') : '',
            ),
          ),
        );
      }),
    );
  };

  filter.addEventListener('input', () => {
    queueListState.filter = filter.value;
    renderQueues();
  });

  fill(
    main,
    h(
      'section',
      { 'aria-labelledby': 'cluster-title' },
      h('h1', { id: 'cluster-title' }, 'Cluster'),
      clusterError,
      h(
        'table',
        { id: 'cluster-table' },
        h(
          'thead',
          {},
          h(
            'tr',
            {},
            [
              'Member',
              'Address',
              'Membership',
              'Role',
              'Term',
              'Commit index',
              'Applied index',
              'Lag (entries)',
              'Health',
            ].map((label) => h('th', { scope: 'col' }, label)),
          ),
        ),
        clusterBody,
      ),
    ),
    h(
      'section',
      { 'aria-labelledby': 'queues-title' },
      h('h2', { id: 'queues-title' }, 'Queues'),
      h(
        'div',
        { class: 'toolbar' },
        h('label', { for: 'queue-filter' }, 'Filter by name'),
        filter,
        h('span', { class: 'hint' }, 'press / to filter'),
      ),
      queuesError,
      queueCount,
      h('table', { id: 'queues-table' }, h('thead', {}, headerRow), queuesBody),
    ),
  );
  renderHeader();
  document.title = 'raftq console';

  return {
    async refresh(isCurrent) {
      const [cluster, list] = await Promise.allSettled([api('GET', '/cluster'), api('GET', '/queues')]);
      if (!isCurrent()) return;
      if (cluster.status === 'fulfilled') {
        fill(clusterError, '');
        fill(/** @type {HTMLElement} */ (document.getElementById('node-id')), `node ${cluster.value.id}`);
        fill(
          clusterBody,
          cluster.value.members.map((member) => memberRow(member, cluster.value.leader)),
        );
      } else fill(clusterError, `Could not read the cluster: ${errorText(cluster.reason)}`);
      if (list.status === 'fulfilled') {
        fill(queuesError, '');
        queues = list.value.queues;
        for (const queue of queues) recordCounts(queue);
        renderQueues();
      } else fill(queuesError, `Could not read the queues: ${errorText(list.reason)}`);
    },
    showError(error) {
      fill(queuesError, errorText(error));
    },
  };
}

function memberRow(member, leader) {
  const answered = member.health !== 'unreachable';
  return h(
    'tr',
    { 'data-member': member.id, class: member.id === leader ? 'leader' : '' },
    h('th', { scope: 'row' }, member.id, member.isSelf ? h('span', { class: 'self' }, ' (this node)') : null),
    h('td', {}, member.address || '-'),
    h('td', {}, member.membership),
    h('td', {}, answered ? member.role : '-'),
    h('td', { class: 'number' }, answered ? formatNumber(member.term) : '-'),
    h('td', { class: 'number' }, answered ? formatNumber(member.commitIndex) : '-'),
    h('td', { class: 'number' }, answered ? formatNumber(member.appliedIndex) : '-'),
    h('td', { class: 'number' }, answered ? formatNumber(member.lagEntries) : '-'),
    h('td', { class: `health health-${member.health.replace(/ /g, '-')}`, title: member.error ?? '' }, member.health),
  );
}

// ---- #/queues/NAME : one queue -------------------------------------------------------------------

function queueView(name) {
  const status = h('p', { id: 'action-status', role: 'status', 'aria-live': 'polite' });
  const error = h('p', { id: 'queue-error', class: 'error', role: 'alert' });
  const heading = h('h1', { id: 'queue-title' }, name);
  const meta = h('p', { class: 'meta', id: 'queue-meta' });
  const counts = h('dl', { id: 'queue-counts', class: 'counts' });
  const chart = h('div', { id: 'queue-chart' });
  const relations = h('div', { id: 'queue-relations' });
  const moveTasks = h('div', { id: 'move-tasks' });
  const attributes = h('div', { id: 'queue-attributes' });
  const tags = h('div', { id: 'queue-tags' });
  const messages = h('div', { id: 'peeked-messages' });
  const sendFields = h('div');
  const redrive = h('section', { 'aria-labelledby': 'redrive-title', id: 'redrive', hidden: true });
  let detail = null;

  const say = (text) => fill(status, text);
  const act = async (what, run) => {
    fill(error, '');
    try {
      await run();
      await refresh(() => true);
      await peek();
    } catch (failure) {
      fill(error, `${what} failed: ${errorText(failure)}`);
    }
  };

  // Peek: read on load and on demand, not on every refresh, so the list holds still while read.
  const limit = h(
    'select',
    { id: 'peek-limit' },
    [10, 50, 100].map((n) => h('option', { value: n }, n)),
  );
  const peek = async () => {
    const answer = await api('GET', `/queues/${encodeURIComponent(name)}/messages?limit=${limit.value}`);
    fill(
      messages,
      answer.messages.length === 0 ? h('p', {}, 'The queue holds no message.') : messagesTable(answer.messages),
    );
  };

  const body = h('textarea', { id: 'send-body', rows: 3, required: true });
  const sendForm = h(
    'form',
    {
      id: 'send-form',
      on: {
        submit: (event) => {
          event.preventDefault();
          const data = new FormData(sendForm);
          const request = { body: body.value };
          for (const field of ['messageGroupId', 'messageDeduplicationId']) {
            const value = String(data.get(field) ?? '').trim();
            if (value !== '') request[field] = value;
          }
          const delay = String(data.get('delaySeconds') ?? '').trim();
          if (delay !== '') request.delaySeconds = Number(delay);
          void act('Sending', async () => {
            const answer = await api('POST', `/queues/${encodeURIComponent(name)}/messages`, request);
            say(`Sent message ${answer.messageId}.`);
          });
        },
      },
    },
    h('label', { for: 'send-body' }, 'Body'),
    body,
    sendFields,
    h('div', { class: 'buttons' }, h('button', { type: 'submit', id: 'send-button' }, 'Send test message')),
  );

  // Shown once the queue's type is known: a FIFO queue's form asks for a group instead of a delay.
  const sendSection = h(
    'section',
    { 'aria-labelledby': 'send-title', id: 'send', hidden: true },
    h('h2', { id: 'send-title' }, 'Send a test message'),
    sendForm,
  );

  const purgeButton = h(
    'button',
    {
      type: 'button',
      id: 'purge-button',
      class: 'danger',
      on: {
        click: async () => {
          const total = detail === null ? null : detail.visible + detail.inFlight + detail.delayed;
          const isSure = await confirmAction(
            `Purge ${name}? This deletes ${total === null ? 'all its' : `its ${total}`} message${total === 1 ? '' : 's'} and cannot be undone.`,
            'Purge',
          );
          purgeButton.focus();
          if (!isSure) return say('Purge cancelled.');
          await act('Purge', async () => {
            await api('POST', `/queues/${encodeURIComponent(name)}/purge`);
            say(`Purged ${name}.`);
          });
        },
      },
    },
    'Purge queue…',
  );

  const redriveForm = h(
    'form',
    {
      id: 'redrive-form',
      on: {
        submit: (event) => {
          event.preventDefault();
          const data = new FormData(redriveForm);
          const request = {};
          const destination = String(data.get('destination') ?? '').trim();
          const rate = String(data.get('maxMessagesPerSecond') ?? '').trim();
          if (destination !== '') request.destination = destination;
          if (rate !== '') request.maxMessagesPerSecond = Number(rate);
          void act('Redrive', async () => {
            await api('POST', `/queues/${encodeURIComponent(name)}/redrive`, request);
            say(`Redrive of ${name} started.`);
          });
        },
      },
    },
    h('label', { for: 'redrive-destination' }, 'Destination queue (empty: back to the queue each message came from)'),
    h('input', { id: 'redrive-destination', name: 'destination', autocomplete: 'off' }),
    h('label', { for: 'redrive-rate' }, 'Messages per second (empty: as fast as it goes)'),
    h('input', { id: 'redrive-rate', name: 'maxMessagesPerSecond', type: 'number', min: 1, max: 500 }),
    h('div', { class: 'buttons' }, h('button', { type: 'submit', id: 'redrive-button' }, 'Start redrive')),
  );
  fill(
    redrive,
    h('h2', { id: 'redrive-title' }, 'Redrive'),
    h('p', {}, 'This is a dead-letter queue: move its messages back.'),
    redriveForm,
  );

  const refresh = async (isCurrent) => {
    let answer;
    try {
      answer = await api('GET', `/queues/${encodeURIComponent(name)}`);
    } catch (failure) {
      if (failure instanceof ApiError && failure.status === 404 && isCurrent()) {
        detail = null;
        fill(meta, 'This queue does not exist (any more).');
        return;
      }
      throw failure;
    }
    if (!isCurrent()) return;
    const isFirst = detail === null;
    detail = answer;
    recordCounts(answer);
    fill(meta, `${answer.type} queue · ${answer.arn}`);
    fill(
      counts,
      h('dt', {}, 'Visible'),
      h('dd', { 'data-count': 'visible' }, formatNumber(answer.visible)),
      h('dt', {}, 'In flight'),
      h('dd', { 'data-count': 'inFlight' }, formatNumber(answer.inFlight)),
      h('dt', {}, 'Delayed'),
      h('dd', { 'data-count': 'delayed' }, formatNumber(answer.delayed)),
      h('dt', {}, 'Oldest message'),
      h('dd', { 'data-count': 'oldest' }, formatAge(answer.oldestMessageAgeSeconds)),
    );
    fill(chart, countsChart(history.get(name) ?? []));
    fill(
      relations,
      h('p', {}, 'Dead-letter queue: ', answer.deadLetterTarget === null ? 'none' : queueLink(answer.deadLetterTarget)),
      h(
        'p',
        {},
        'Dead-letter queue of: ',
        answer.deadLetterSourceQueues.length === 0
          ? 'no queue'
          : answer.deadLetterSourceQueues.flatMap((source, i) => [i > 0 ? ', ' : '', queueLink(source)]),
      ),
    );
    redrive.hidden = answer.deadLetterSourceQueues.length === 0;
    fill(
      moveTasks,
      answer.moveTasks.length === 0 ? h('p', {}, 'No move task is running.') : moveTasksTable(answer.moveTasks),
    );
    fill(attributes, keyValueTable('queue-attributes-table', 'Attribute', answer.attributes));
    fill(
      tags,
      Object.keys(answer.tags).length === 0
        ? h('p', {}, 'No tags.')
        : keyValueTable('queue-tags-table', 'Tag', answer.tags),
    );
    if (isFirst) {
      const isFifo = answer.type === 'fifo';
      fill(
        sendFields,
        isFifo
          ? [
              h('label', { for: 'send-group' }, 'Message group ID'),
              h('input', { id: 'send-group', name: 'messageGroupId', required: true, autocomplete: 'off' }),
              h('label', { for: 'send-dedup' }, 'Deduplication ID (empty with content-based deduplication)'),
              h('input', { id: 'send-dedup', name: 'messageDeduplicationId', autocomplete: 'off' }),
            ]
          : [
              h('label', { for: 'send-delay' }, 'Delay seconds'),
              h('input', { id: 'send-delay', name: 'delaySeconds', type: 'number', min: 0, max: 900 }),
            ],
      );
      sendSection.hidden = false;
      await peek();
    }
  };

  fill(
    main,
    h('nav', { 'aria-label': 'Breadcrumb' }, h('a', { href: '#/' }, '← Cluster and queues')),
    heading,
    meta,
    error,
    status,
    h(
      'section',
      { 'aria-labelledby': 'counts-title' },
      h('h2', { id: 'counts-title' }, 'Messages'),
      counts,
      chart,
      relations,
    ),
    h(
      'section',
      { 'aria-labelledby': 'peek-title' },
      h('h2', { id: 'peek-title' }, 'Peek'),
      h(
        'p',
        { class: 'hint' },
        'A peek reads the messages as they are: it does not receive them, count a receive or change their visibility.',
      ),
      h(
        'div',
        { class: 'toolbar' },
        h('label', { for: 'peek-limit' }, 'Show'),
        limit,
        h(
          'button',
          {
            type: 'button',
            id: 'peek-button',
            on: { click: () => void peek().catch((failure) => fill(error, `Peek failed: ${errorText(failure)}`)) },
          },
          'Refresh messages',
        ),
      ),
      messages,
    ),
    sendSection,
    h(
      'section',
      { 'aria-labelledby': 'purge-title' },
      h('h2', { id: 'purge-title' }, 'Purge'),
      h('p', {}, 'Deletes every message of the queue (SQS PurgeQueue: once a minute).'),
      purgeButton,
    ),
    redrive,
    h('section', { 'aria-labelledby': 'tasks-title' }, h('h2', { id: 'tasks-title' }, 'Move tasks'), moveTasks),
    h(
      'section',
      { 'aria-labelledby': 'attributes-title' },
      h('h2', { id: 'attributes-title' }, 'Attributes'),
      attributes,
    ),
    h('section', { 'aria-labelledby': 'tags-title' }, h('h2', { id: 'tags-title' }, 'Tags'), tags),
  );
  document.title = `${name} · raftq console`;

  return { refresh, showError: (failure) => fill(error, errorText(failure)) };
}

function messagesTable(list) {
  return h(
    'table',
    { id: 'messages-table' },
    h(
      'thead',
      {},
      h(
        'tr',
        {},
        ['Message ID', 'State', 'Receives', 'Sent', 'Visible at', 'First received', 'Group', 'Attributes', 'Body'].map(
          (label) => h('th', { scope: 'col' }, label),
        ),
      ),
    ),
    h(
      'tbody',
      {},
      list.map((message) =>
        h(
          'tr',
          { 'data-message-id': message.messageId },
          h('th', { scope: 'row', class: 'mono' }, message.messageId),
          h('td', {}, message.state),
          h('td', { class: 'number' }, formatNumber(message.receiveCount)),
          h('td', { class: 'mono' }, message.sentAt),
          h('td', { class: 'mono' }, message.visibleAt),
          h('td', { class: 'mono' }, message.firstReceivedAt ?? '-'),
          h('td', {}, message.messageGroupId ?? '-'),
          h('td', {}, attributeList(message.messageAttributes)),
          h('td', {}, h('pre', { class: 'body' }, message.body)),
        ),
      ),
    ),
  );
}

function attributeList(attributes) {
  const entries = Object.entries(attributes ?? {});
  if (entries.length === 0) return '-';
  return h(
    'ul',
    { class: 'plain' },
    entries.map(([key, value]) =>
      h('li', {}, `${key} (${value.dataType}): ${value.stringValue ?? value.binaryValue ?? ''}`),
    ),
  );
}

function moveTasksTable(tasks) {
  return h(
    'table',
    { id: 'move-tasks-table' },
    h(
      'thead',
      {},
      h(
        'tr',
        {},
        ['Status', 'Destination', 'Moved', 'To move', 'Rate', 'Started'].map((label) =>
          h('th', { scope: 'col' }, label),
        ),
      ),
    ),
    h(
      'tbody',
      {},
      tasks.map((task) => {
        const toMove = task.approximateNumberOfMessagesToMove;
        return h(
          'tr',
          {},
          h('td', {}, task.status),
          h('td', {}, task.destinationArn === undefined ? 'the source queues' : task.destinationArn.split(':').pop()),
          h(
            'td',
            { class: 'number' },
            formatNumber(task.approximateNumberOfMessagesMoved),
            toMove === undefined
              ? null
              : h('progress', {
                  max: Math.max(1, toMove),
                  value: task.approximateNumberOfMessagesMoved,
                  'aria-label': 'moved so far',
                }),
          ),
          h('td', { class: 'number' }, formatNumber(toMove)),
          h(
            'td',
            { class: 'number' },
            task.maxNumberOfMessagesPerSecond === undefined ? 'unlimited' : `${task.maxNumberOfMessagesPerSecond}/s`,
          ),
          h('td', { class: 'mono' }, new Date(task.startedTimestampMs).toISOString()),
        );
      }),
    ),
  );
}

function keyValueTable(id, label, values) {
  return h(
    'table',
    { id, class: 'key-value' },
    h('thead', {}, h('tr', {}, h('th', { scope: 'col' }, label), h('th', { scope: 'col' }, 'Value'))),
    h(
      'tbody',
      {},
      Object.entries(values)
        .sort(([a], [b]) => a.localeCompare(b))
        .map(([key, value]) =>
          h('tr', { 'data-key': key }, h('th', { scope: 'row' }, key), h('td', { class: 'mono' }, String(value))),
        ),
    ),
  );
}

/** Visible, in flight and delayed over the samples taken, as lines in a small SVG. */
function countsChart(samples) {
  const width = 480;
  const height = 120;
  const series = [
    { key: 'visible', label: 'visible', className: 'series-visible' },
    { key: 'inFlight', label: 'in flight', className: 'series-inflight' },
    { key: 'delayed', label: 'delayed', className: 'series-delayed' },
  ];
  if (samples.length < 2)
    return h('p', { class: 'hint' }, 'The chart of the counts fills in as the console keeps refreshing.');
  const first = samples[0].atMs;
  const spanMs = Math.max(1, samples[samples.length - 1].atMs - first);
  const top = Math.max(1, ...samples.flatMap((s) => series.map((line) => s[line.key])));
  const x = (atMs) => ((atMs - first) / spanMs) * (width - 40) + 36;
  const y = (value) => height - 16 - (value / top) * (height - 28);
  const last = samples[samples.length - 1];
  const summary = `Counts over the last ${formatAge(spanMs / 1000)}: ${series.map((line) => `${line.label} now ${last[line.key]}`).join(', ')}; highest ${top}.`;
  return h(
    'figure',
    { class: 'chart' },
    svg(
      'svg',
      { viewBox: `0 0 ${width} ${height}`, role: 'img', 'aria-label': summary },
      svg('line', { x1: 36, x2: width - 4, y1: y(0), y2: y(0), class: 'axis' }),
      svg('text', { x: 30, y: y(top) + 4, class: 'tick', 'text-anchor': 'end' }, top),
      svg('text', { x: 30, y: y(0) + 4, class: 'tick', 'text-anchor': 'end' }, 0),
      series.map((line) =>
        svg('polyline', {
          class: line.className,
          points: samples.map((s) => `${x(s.atMs).toFixed(1)},${y(s[line.key]).toFixed(1)}`).join(' '),
        }),
      ),
    ),
    h(
      'figcaption',
      {},
      series.map((line) => h('span', { class: `legend ${line.className}` }, line.label)),
      ` · last ${formatAge(spanMs / 1000)}`,
    ),
  );
}

// ---- routing --------------------------------------------------------------------------------------

function route() {
  const match = /^#\/queues\/([^/]+)$/.exec(location.hash);
  let name = null;
  if (match !== null) {
    try {
      name = decodeURIComponent(match[1]);
    } catch {
      name = null;
    }
  }
  showView(name === null ? overviewView() : queueView(name));
  main.focus({ preventScroll: true });
}

document.addEventListener('keydown', (event) => {
  const target = /** @type {HTMLElement} */ (event.target);
  const isTyping =
    target instanceof HTMLInputElement || target instanceof HTMLTextAreaElement || target instanceof HTMLSelectElement;
  if (event.key === '/' && !isTyping && !event.ctrlKey && !event.metaKey && !event.altKey) {
    const filter = document.getElementById('queue-filter');
    if (filter !== null) {
      event.preventDefault();
      filter.focus();
    }
  }
});

window.addEventListener('hashchange', route);
showForgetToken();
route();
