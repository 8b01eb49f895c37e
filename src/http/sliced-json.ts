/**
 * Large JSON answers serialised in slices. Fastify serialises a response in one synchronous call; for
 * a page of the journal-entry list (up to 2,000 embedded lines, about 2 MB of JSON) that call holds the
 * event loop for tens of milliseconds, and twenty such reads in a row hold it for seconds, during which
 * no other request — a health probe included — is read or answered. Here the page's items are
 * serialised one at a time, and the serialiser yields to the event loop (`setImmediate`) whenever it
 * has worked for `SLICE_MS`, so another request waits at most about one slice (one item: an entry of
 * at most 10,000 lines) instead of whole pages.
 *
 * The bytes are those of the route's own serialiser: the envelope is serialised by the route's
 * response schema with an empty item array, each item by the item schema (the same fast-json-stringify
 * compiler, through Fastify), and the items are spliced into the array — the array is the envelope's
 * first property, so its empty form opens the text. Status, headers and body are unchanged.
 */
import type { TSchema } from 'typebox';
import type { FastifyReply } from 'fastify';

/** How long the serialiser works before it lets the event loop run. */
export const SLICE_MS = 5;

const JSON_TYPE = 'application/json; charset=utf-8';

type Serialize = (data: unknown) => string;

const yieldToEventLoop = () => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * Sends `page` — an object whose first property `key` is the item array — with status 200, as the
 * route's 200 schema would serialise it with every item replaced by `toItem(item)`: the items are
 * turned into their wire form and serialised with `itemSchema` one at a time, in slices. Building each
 * wire object right before it is serialised keeps a large page's objects short-lived.
 */
export async function sendPageInSlices<K extends string, T>(
  reply: FastifyReply,
  key: K,
  page: { [P in K]: readonly T[] },
  itemSchema: TSchema,
  toItem: (item: T) => unknown = (item) => item,
): Promise<FastifyReply> {
  const items = page[key];
  const serializePage = reply.getSerializationFunction('200') as Serialize | undefined;
  const envelope = serializePage?.({ ...page, [key]: [] });
  const opening = `{${JSON.stringify(key)}:[]`;
  if (envelope === undefined || !envelope.startsWith(opening)) {
    return reply.send({ ...page, [key]: items.map(toItem) });
  }
  const serializeItem = reply.compileSerializationSchema(
    itemSchema as Record<string, unknown>,
    '200',
  ) as Serialize;
  const body = await inLane(async () => {
    const parts: string[] = [`{${JSON.stringify(key)}:[`];
    let sliceStart = performance.now();
    for (let i = 0; i < items.length; i++) {
      if (i > 0) parts.push(',');
      parts.push(serializeItem(toItem(items[i]!)));
      if (performance.now() - sliceStart >= SLICE_MS) {
        await yieldToEventLoop();
        sliceStart = performance.now();
      }
    }
    parts.push(']', envelope.slice(opening.length));
    return parts.join('');
  });
  return reply.code(200).type(JSON_TYPE).send(body);
}

/** The end of the serialisation lane: the promise the next page waits for. */
let lane: Promise<void> = Promise.resolve();

/**
 * Pages are serialised one at a time, in the order they are ready: interleaving the slices of twenty
 * concurrent pages would keep all twenty pages' records and texts alive at once (each garbage
 * collection copying them again) and finish every page late; in turn, each page is done — and its
 * objects freed — as soon as it can be. Other requests still run between the slices.
 */
async function inLane<R>(work: () => Promise<R>): Promise<R> {
  const previous = lane;
  let release!: () => void;
  lane = new Promise<void>((resolve) => (release = resolve));
  await previous;
  try {
    return await work();
  } finally {
    release();
  }
}
