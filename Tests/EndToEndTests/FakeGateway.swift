/// A stand-in for the daemon's WebSocket gateway, inside the page: installed before the
/// page's scripts (`addScriptOnNewDocument`), it replaces `WebSocket` and `fetch` with a
/// daemon in memory that answers `devices.list`, `events.recent`, `events.subscribe`
/// (with `since`: the journal after it, then live events) and `bridge.hello`, and that a
/// test drives through `window.fakeDaemon`: `inject`, `setDevice`, `stop`, `start`,
/// `refuseToken` (401), `refuseOrigin` (403). It lets the counter page and scanbridge.mjs
/// be tested without the gateway; `CounterPageTests` and `ClientModuleTests` test them
/// against the real one.
enum FakeGateway {
    static let script = #"""
        (() => {
          const daemon = {
            up: true, refused: false, forbidden: false, journal: [], devices: new Map(), sockets: new Set(),
            connections: 0, subscribes: [], nextSubscription: 1,
            inject(event) {
              event.seq = this.journal.length + 1;
              event.id = "e" + event.seq;
              event.time = event.time ?? new Date(Date.UTC(2026, 10, 21, 9, 40, event.seq)).toISOString();
              this.journal.push(event);
              for (const socket of this.sockets) for (const id of socket.subscriptions)
                socket.deliver({ method: "scan", params: { subscription: id, event } });
              return event.seq;
            },
            setDevice(device, method) {
              this.devices.set(device.id, device);
              for (const socket of this.sockets) for (const id of socket.subscriptions)
                socket.deliver({ method, params: { subscription: id, device } });
            },
            stop() { this.up = false; for (const socket of [...this.sockets]) socket.drop(); },
            start() { this.up = true; },
            refuseToken() { this.refused = true; this.stop(); },
            refuseOrigin() { this.forbidden = true; this.stop(); },
            answer(socket, request) {
              const p = request.params ?? {};
              switch (request.method) {
                case "bridge.hello": return { name: "scanbridge", version: "fake", protocol: 1, role: "reader" };
                case "devices.list": return { devices: [...this.devices.values()] };
                case "events.recent": return { events: this.journal.slice(-(p.limit ?? 50)) };
                case "events.subscribe": {
                  const id = "s" + this.nextSubscription++;
                  this.subscribes.push(p.since ?? null);
                  socket.subscriptions.add(id);
                  // The journal after `since` follows the answer, as the daemon sends it.
                  const backlog = p.since === undefined ? [] : this.journal.filter(e => e.seq > p.since);
                  setTimeout(() => { for (const event of backlog)
                    socket.deliver({ method: "scan", params: { subscription: id, event } }); }, 0);
                  return { subscription: id, seq: this.journal.length };
                }
                case "events.unsubscribe": socket.subscriptions.delete(p.subscription); return {};
                default: throw { code: -32601, message: "no method " + request.method };
              }
            },
          };
          class FakeSocket {
            constructor(url) {
              this.url = url; this.readyState = 0; this.subscriptions = new Set();
              setTimeout(() => {
                if (!daemon.up) { this.readyState = 3; this.onclose?.({ code: 1006 }); return; }
                daemon.connections += 1; daemon.sockets.add(this); this.readyState = 1; this.onopen?.({});
              }, 0);
            }
            send(text) {
              const request = JSON.parse(text);
              let reply;
              try { reply = { jsonrpc: "2.0", id: request.id, result: daemon.answer(this, request) }; }
              catch (error) { reply = { jsonrpc: "2.0", id: request.id, error }; }
              setTimeout(() => this.deliver(reply), 0);
            }
            deliver(message) {
              if (this.readyState === 1) this.onmessage?.({ data: JSON.stringify({ jsonrpc: "2.0", ...message }) });
            }
            drop() { daemon.sockets.delete(this); this.readyState = 3; this.onclose?.({ code: 1006 }); }
            close() { if (this.readyState === 1) this.drop(); }
          }
          window.WebSocket = FakeSocket;
          window.fetch = async () => new Response("{}", { status: daemon.refused ? 401 : daemon.forbidden ? 403 : 200 });
          window.fakeDaemon = daemon;
        })();
        """#
}
