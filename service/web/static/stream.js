// Server-Sent Events over fetch: every event type (EventSource only hands named events to
// listeners registered for that name, and a game's event types are the game's own), the
// viewer's own token in the Authorization header, and on any break a reconnect that sends
// Last-Event-ID, so nothing is missed and nothing comes twice.

const RETRY_MS = 2000;

/**
 * Follow `path` from version `after`: `onEvent({id, type, data})` for each message. Returns a
 * function that stops following. The stream ends by itself after a finished game's last event
 * (`onEnd` is then called once).
 */
export function follow(path, { after = 0, token = null, onEvent, onEnd, onState }) {
  let last = after;
  let stopped = false;
  let controller = null;
  let retry = RETRY_MS;

  async function once() {
    controller = new AbortController();
    const headers = { Accept: "text/event-stream" };
    if (token) headers.Authorization = `Bearer ${token}`;
    if (last > 0) headers["Last-Event-ID"] = String(last);
    const response = await fetch(path, { headers, signal: controller.signal, cache: "no-store" });
    if (!response.ok || !response.body) throw new Error(`stream answered ${response.status}`);
    if (onState) onState("live");
    const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
    let buffer = "";
    let sawEnd = false;
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      buffer += value.replaceAll("\r\n", "\n");
      let cut;
      while ((cut = buffer.indexOf("\n\n")) >= 0) {
        const block = buffer.slice(0, cut);
        buffer = buffer.slice(cut + 2);
        const message = parse(block);
        if (message.retry) retry = message.retry;
        if (message.data === null) continue;
        if (message.id !== null && /^\d+$/.test(message.id)) last = Number(message.id);
        if (message.type === "seed_revealed") sawEnd = true;
        onEvent(message);
      }
    }
    return sawEnd;
  }

  async function loop() {
    while (!stopped) {
      try {
        if (await once()) {
          if (onEnd) onEnd();
          return;
        }
      } catch (error) {
        if (stopped) return;
        if (onState) onState("reconnecting");
      }
      // a stream that ends without the game's last event (a server's time limit) resumes
      await new Promise((resolve) => setTimeout(resolve, retry));
    }
  }

  loop();
  return () => {
    stopped = true;
    if (controller) controller.abort();
  };
}

function parse(block) {
  const message = { id: null, type: "message", data: null, retry: 0 };
  const data = [];
  for (const line of block.split("\n")) {
    if (!line || line.startsWith(":")) continue;
    const colon = line.indexOf(":");
    const name = colon < 0 ? line : line.slice(0, colon);
    let value = colon < 0 ? "" : line.slice(colon + 1);
    if (value.startsWith(" ")) value = value.slice(1);
    if (name === "id") message.id = value;
    else if (name === "event") message.type = value;
    else if (name === "data") data.push(value);
    else if (name === "retry" && /^\d+$/.test(value)) message.retry = Number(value);
  }
  if (data.length) message.data = data.join("\n");
  return message;
}
