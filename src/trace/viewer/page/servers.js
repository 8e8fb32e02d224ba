/* The servers of the trace, their tools, and why any was unavailable. */
/* global V */
'use strict';

V.views.servers = (function servers() {
  function table() {
    const box = V.clear(V.byId('server-table'));
    if (V.model.servers.length === 0) {
      box.append(V.el('p', { className: 'empty', text: 'No MCP server appears in this trace.' }));
      return;
    }
    const body = V.el('tbody');
    for (const server of V.model.servers) {
      const tools = V.el('ul', { className: 'list' });
      for (const tool of server.tools) {
        tools.append(
          V.el(
            'li',
            {},
            V.el('code', { text: tool.name }),
            tool.calls > 0 ? ` · ${tool.calls} call(s), ${tool.failures} not successful` : '',
            tool.description
              ? V.el('div', { className: 'sub', text: tool.description })
              : undefined,
          ),
        );
      }
      body.append(
        V.el(
          'tr',
          { 'data-server': server.name },
          V.el('td', {}, V.el('strong', { text: server.name })),
          V.el('td', { text: server.transport ?? '' }),
          V.el(
            'td',
            {},
            V.el('span', { className: `status ${server.status}`, text: server.status }),
            server.isolation
              ? V.el('div', { className: 'sub', text: `isolated (${server.isolation})` })
              : undefined,
            server.reason ? V.el('div', { className: 'reason', text: server.reason }) : undefined,
          ),
          V.el('td', {}, tools),
          V.el('td', {
            text: String(server.events.length),
            title: 'events that name this server (see the Events view)',
          }),
        ),
      );
    }
    box.append(
      V.el(
        'table',
        {},
        V.el(
          'thead',
          {},
          V.el(
            'tr',
            {},
            ...['Server', 'Transport', 'Status', 'Tools', 'Events'].map((name) =>
              V.el('th', { text: name }),
            ),
          ),
        ),
        body,
      ),
    );
  }

  return { load: table };
})();
