export interface ServerSentEvent {
  event: string;
  data: string;
}

/** The complete events at the start of `buffer` (each ends with a blank line), and what is left of it. */
export function splitServerSentEvents(buffer: string): { events: ServerSentEvent[]; rest: string } {
  const events: ServerSentEvent[] = [];
  let rest = buffer;
  let end: number;
  while ((end = rest.indexOf('\n\n')) !== -1) {
    const block = rest.slice(0, end);
    rest = rest.slice(end + 2);
    const event = /^event: (.*)$/m.exec(block)?.[1];
    const data = /^data: (.*)$/m.exec(block)?.[1];
    if (event !== undefined && data !== undefined) events.push({ event, data });
  }
  return { events, rest };
}
